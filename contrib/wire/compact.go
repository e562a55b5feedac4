package wire

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/crystal-star/crystal-star/contrib"
)

// The tool call's frames in a compact encoding (issue 26, point 2): the
// JSON of an Invoke and of a Result, written and read by reflection, was a
// tenth of each side's CPU in a trivial call. A compact body starts with
// compactTag, which no JSON text starts with; any other body is JSON, so
// either side reads both. TestH26_2_CompactCoversEveryField fails when
// Invoke, contrib.Facts or contrib.Result gains a field this encoding does
// not know.

// compactTag opens a compact body.
const compactTag = 0xC1

// AppendToolInvoke appends the compact encoding of a tool call's Invoke:
// the tag, Index (varint), Group (uvarint), a flags byte (Progress), the
// facts' strings (each a uvarint length and its bytes) and Args, the rest.
// The other fields of Invoke are for other callbacks; a tool call has
// them zero.
func AppendToolInvoke(b []byte, in Invoke) []byte {
	b = append(b, compactTag)
	b = binary.AppendVarint(b, int64(in.Index))
	b = binary.AppendUvarint(b, in.Group)
	var flags byte
	if in.Progress {
		flags |= 1
	}
	b = append(b, flags)
	for _, s := range factStrings(&in.Facts) {
		b = binary.AppendUvarint(b, uint64(len(*s)))
		b = append(b, *s...)
	}
	return append(b, in.Args...)
}

// factStrings are the fields of f, in their order on the wire.
func factStrings(f *contrib.Facts) [6]*string {
	return [6]*string{&f.Workspace, &f.SessionID, &f.Mode, &f.ApprovalMode, &f.Provider, &f.Model}
}

// DecodeInvoke reads an Invoke in either encoding. Args aliases body.
func DecodeInvoke(body []byte, in *Invoke) error {
	if len(body) == 0 || body[0] != compactTag {
		return json.Unmarshal(body, in)
	}
	p := body[1:]
	index, n := binary.Varint(p)
	if n <= 0 {
		return fmt.Errorf("%w: a tool call's index", ErrGarbage)
	}
	p = p[n:]
	group, n := binary.Uvarint(p)
	if n <= 0 || len(p) == n {
		return fmt.Errorf("%w: a tool call's group", ErrGarbage)
	}
	p = p[n:]
	*in = Invoke{Index: int(index), Group: group, Progress: p[0]&1 != 0}
	p = p[1:]
	for _, s := range factStrings(&in.Facts) {
		l, n := binary.Uvarint(p)
		if n <= 0 || uint64(len(p)-n) < l {
			return fmt.Errorf("%w: a tool call's facts", ErrGarbage)
		}
		*s = string(p[n : n+int(l)])
		p = p[n+int(l):]
	}
	if len(p) > 0 {
		in.Args = p
	}
	return nil
}

// AppendResult appends r: compact when it is only text (a tool's common
// answer), else its JSON.
func AppendResult(b []byte, r contrib.Result) ([]byte, error) {
	if r.Data == nil && r.Parts == nil && r.Err == nil {
		return append(append(b, compactTag), r.Text...), nil
	}
	j, err := json.Marshal(r)
	return append(b, j...), err
}

// DecodeResult reads a Result in either encoding.
func DecodeResult(body []byte) (contrib.Result, error) {
	if len(body) > 0 && body[0] == compactTag {
		return contrib.Result{Text: string(body[1:])}, nil
	}
	var r contrib.Result
	err := json.Unmarshal(body, &r)
	return r, err
}

// toolReply is the out of a tool call: Conn.Call hands it the reply's
// bytes (replyDecoder), in either encoding.
type toolReply struct{ res *contrib.Result }

func (t toolReply) decodeReply(body []byte) (err error) {
	*t.res, err = DecodeResult(body)
	return err
}

// replyDecoder is an out of Conn.Call that reads the reply's bytes itself.
type replyDecoder interface{ decodeReply(body []byte) error }
