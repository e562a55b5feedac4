package starhost

import "github.com/crystal-star/crystal-star/contrib"

// MaxMediaTypeBytes bounds a media type (a content part's MIME, a
// published resource's), parameters included.
const MaxMediaTypeBytes = 255

// CheckMediaType returns nil when s is a media type of RFC 6838's shape,
// type "/" subtype with optional `; name=value` parameters, of printable
// ASCII and at most MaxMediaTypeBytes; else an error saying what is wrong.
// The content constructors and every tool result are checked with it; a
// surface that takes a media type from a plugin otherwise (an MCP resource
// publisher) checks it too, so no line break travels to a client.
func CheckMediaType(s string) error { return contrib.CheckMediaType(s) }
