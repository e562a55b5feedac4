// Package statusline owns the host's status fields: field admission (CC15), the
// text sanitiser that keeps every plugin text on one clean line (CC18), the
// per-generation sinks plugins push through (CC17, CC18), the operator's line
// and its placement rules (CC16), and the /statusline view. The sanitiser's
// other form, Terminal, shows what the status line drops as escapes instead;
// the CLI applies it to every plugin-supplied string it prints. It implements rules
// CC15–CC18 of shared/CONTRACT.md and imports the standard library only.
//
// One Board holds every field and every published text. A plugin's accepted
// fields are declared on it once per generation; the generation then receives
// a Sink (the object behind ctx.status) and pushes texts through it. The host
// never polls and runs no timer: a text changes only when a plugin calls Set or
// Clear, when its sink is retired, or when the plugin is withdrawn. Subscribe
// tells the embedder when to redraw.
//
// Nothing here places a plugin field anywhere by itself. The operator's Line
// (status_line in config.toml, edited with /statusline) is the only place a
// plugin field is shown; Render draws it and View lists every field for the
// /statusline command.
//
// Board and Sink are safe for concurrent use; Line is a plain value. No
// callback supplied by the caller (note, subscriber, built-in text) is ever
// called while a lock of this package is held.
package statusline
