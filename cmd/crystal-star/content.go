package main

import (
	"fmt"

	"github.com/crystal-star/crystal-star/starhost"
)

// partLines renders a multimodal result for a terminal (MC1): text parts
// as they are, binary parts as one bracketed line with type, mime and size
// (the bytes are in `call --json`).
func partLines(parts []starhost.ContentPart) []string {
	var out []string
	for _, p := range parts {
		switch p.Type {
		case starhost.PartText:
			out = append(out, p.Text)
		case starhost.PartResource:
			out = append(out, fmt.Sprintf("[resource %s %s, %d bytes]", p.URI, p.MIME, p.Size()))
			if p.Text != "" {
				out = append(out, p.Text)
			}
		default:
			out = append(out, fmt.Sprintf("[%s %s, %d bytes]", p.Type, p.MIME, p.Size()))
		}
	}
	return out
}
