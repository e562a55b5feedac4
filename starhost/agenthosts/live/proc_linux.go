//go:build linux

package live

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// processKey names the live socket of process pid: its pid and its start
// time (field 22 of /proc/PID/stat, in clock ticks since boot), so a pid
// the kernel gives to another process later never names the same socket.
func processKey(pid int) (key string, ppid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	ppid, start, ok := parseStat(string(b))
	if !ok {
		return "", 0, false
	}
	return fmt.Sprintf("process %d %s", pid, start), ppid, true
}

// parseStat reads the parent pid and the start time of a /proc/PID/stat
// line. The command name (field 2) is in parentheses and may hold spaces
// and parentheses itself, so the fields are counted after the last ')'.
func parseStat(line string) (ppid int, start string, ok bool) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(line[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err := strconv.Atoi(f[1]) // field 4
	if err != nil {
		return 0, "", false
	}
	if _, err := strconv.ParseUint(f[19], 10, 64); err != nil { // field 22
		return 0, "", false
	}
	return ppid, f[19], true
}
