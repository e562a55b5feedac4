package wire

import (
	"fmt"
	"strconv"
	"strings"
)

// Slots: one worker may serve several generations at once — of one plugin
// across a reload, or of the plugins of one isolation group
// (docs/isolation.md, "Workers and isolation groups"). Each generation
// lives in a numbered slot of the worker; a call or notification that
// belongs to a slot carries the number after its method, "tool@3". Slot 0
// is the worker itself (ping, hello, dry runs): its methods carry no
// suffix, as before slots existed.

// SlotMethod returns method addressed to slot (method itself for slot 0).
func SlotMethod(method string, slot uint64) string {
	if slot == 0 {
		return method
	}
	return method + "@" + strconv.FormatUint(slot, 10)
}

// SplitSlot splits a method from its slot ("tool@3" → "tool", 3); a
// method without a slot is slot 0.
func SplitSlot(m string) (string, uint64) {
	i := strings.LastIndexByte(m, '@')
	if i < 0 {
		return m, 0
	}
	n, err := strconv.ParseUint(m[i+1:], 10, 64)
	if err != nil {
		return m, 0
	}
	return m[:i], n
}

// MethodClose ends the generation of a slot and frees the slot: the host
// closed it (a reload drained it, the plugin was disabled). nothing →
// nothing.
const MethodClose = "close"

// NotifyHello is the worker's first frame, sent before it serves anything:
// the handshake. A process that never sends it is not serving as a worker
// (its main does not call starhost.ServeWorkerIfChild first). Hello.
const NotifyHello = "hello"

// VersionMismatch is what side ("host" or "worker") says when its peer
// speaks protocol theirs instead of Version: host and worker come from
// different builds.
func VersionMismatch(side, theirs string) string {
	peer := "worker"
	if side == peer {
		peer = "host"
	}
	return fmt.Sprintf("protocol version mismatch: this %s speaks %q, the %s %q; the host and the worker come from different builds",
		side, Version, peer, theirs)
}

// Hello is the worker's handshake.
type Hello struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
	// Limit is the address-space limit (RLIMIT_AS) the worker applied, in
	// bytes (0: none); Clamped says why it is lower than asked: an
	// inherited hard limit the worker may not raise.
	Limit   int64  `json:"limit,omitempty"`
	Clamped string `json:"clamped,omitempty"`
	// Failed is why the worker cannot serve (it exits after the hello).
	Failed string `json:"failed,omitempty"`
	// Procs is the worker's GOMAXPROCS: 1 unless the operator set
	// GOMAXPROCS (docs/isolation.md, "Protocol and measurements").
	Procs int `json:"procs,omitempty"`
}
