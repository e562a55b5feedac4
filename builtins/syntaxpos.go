package builtins

// AtEndOfLine moves a syntax error the parser reports at the start of a
// line ("got newline", "got end of file") to the end of the last non-blank
// line before it, where the author left something out — as check reports
// it. Any other error is returned unchanged. starhost/format reports its
// parse errors through it so that fmt and check agree.
func AtEndOfLine(src []byte, err error) error { return endOfLine(src, err) }
