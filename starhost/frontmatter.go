package starhost

import (
	"bufio"
	"bytes"
	"strings"
)

// frontMatter splits a markdown file (SKILL.md, a markdown command) into the
// key: value lines of a leading `---` block and the body after it. Without
// such a block every byte is body. Values lose surrounding quotes.
func frontMatter(data []byte) (map[string]string, string) {
	fields := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return fields, string(data)
	}
	consumed := len(sc.Bytes()) + 1
	closed := false
	for sc.Scan() {
		consumed += len(sc.Bytes()) + 1
		if strings.TrimSpace(sc.Text()) == "---" {
			closed = true
			break
		}
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
			fields[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	if !closed {
		return map[string]string{}, string(data)
	}
	return fields, strings.TrimLeft(string(data[min(consumed, len(data)):]), "\r\n")
}
