package statusline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// separator joins the parts of the operator's line. A middle dot keeps the
// line light and cannot be confused with text a plugin would write, which is
// itself free of marks the host did not choose (CC18).
const separator = " · "

// Line is the operator's placement of fields (CC16): the status_line list of
// config.toml as edited by /statusline. Names are field names in the order
// shown; a name whose plugin is not loaded is kept. The zero value is an
// empty line that is on. Line is a plain value; Apply never modifies the
// receiver's Names array.
type Line struct {
	Off   bool
	Names []string
}

// Apply runs one /statusline subcommand and returns the new line and whether
// it changed:
//
//	add NAME     append NAME (stored lowercase); already present is no change
//	remove NAME  remove NAME; absent is an error
//	on, off      show or hide the line, keeping its names
//	reset        the zero Line: no names, on
//
// Verbs and names are compared case-insensitively. add accepts only a
// syntactically legal, non-reserved name that known reports as a field now
// (pass Board.Known; a nil known accepts nothing). Errors are English
// sentences for the operator and name no command; those about a name that
// is not a field (add) or not on the line (remove) match ErrUnknownField
// with errors.Is. Apply is pure.
func (l Line) Apply(verb, arg string, known func(string) bool) (Line, bool, error) {
	verb = strings.ToLower(strings.TrimSpace(verb))
	arg = strings.TrimSpace(arg)
	switch verb {
	case "add", "remove":
		if arg == "" {
			return l, false, fmt.Errorf("status line %s needs a field name", verb)
		}
	case "on", "off", "reset":
		if arg != "" {
			return l, false, fmt.Errorf("status line %s takes no argument", verb)
		}
	default:
		return l, false, fmt.Errorf("unknown status line edit %s; use add, remove, on, off or reset", quoteName(verb))
	}
	i := slices.IndexFunc(l.Names, func(n string) bool { return strings.EqualFold(n, arg) })
	switch verb {
	case "add":
		name, err := admitName(arg, nil)
		if err != nil {
			return l, false, err
		}
		if i >= 0 {
			return l, false, nil
		}
		if known == nil || !known(name) {
			return l, false, unknownField(fmt.Sprintf("status field %q is not known: no built-in field or loaded plugin has it", name))
		}
		l.Names = append(slices.Clip(l.Names), name)
		return l, true, nil
	case "remove":
		if i < 0 {
			return l, false, unknownField(fmt.Sprintf("status field %s is not on the status line", quoteName(strings.ToLower(arg))))
		}
		l.Names = slices.Delete(slices.Clone(l.Names), i, i+1)
		return l, true, nil
	case "on", "off":
		off := verb == "off"
		changed := l.Off != off
		l.Off = off
		return l, changed, nil
	}
	return Line{}, l.Off || len(l.Names) > 0, nil
}

// ErrUnknownField matches Apply's errors about a name that is not a field
// (add) or not on the line (remove); its other errors are about the edit.
var ErrUnknownField = errors.New("unknown status field")

// unknownField is an error of Apply that matches ErrUnknownField.
type unknownField string

func (e unknownField) Error() string        { return string(e) }
func (e unknownField) Is(target error) bool { return target == ErrUnknownField }

// Render returns the operator's line: for each name of l.Names in order, the
// text of that field, joined with Separator. Built-in texts come from the
// builtin function (nil means none) and are used as given; plugin texts come
// from the board. A name with no text, blank text or no loaded plugin is
// skipped. An off line, or one with nothing to show, renders as "". builtin is
// called outside the board's lock. Safe for concurrent use.
func (b *Board) Render(l Line, builtin func(name string) string) string {
	return b.RenderWith(l, nil, builtin)
}

// RenderWith is Render for one session: a text of o (nil: none) shows
// instead of the host-wide text of the same field.
func (b *Board) RenderWith(l Line, o *Overlay, builtin func(name string) string) string {
	if l.Off || len(l.Names) == 0 {
		return ""
	}
	var small [16]string
	parts := small[:0]
	if len(l.Names) > len(small) {
		parts = make([]string, 0, len(l.Names))
	}
	parts = parts[:len(l.Names)]
	b.mu.RLock()
	for i, n := range l.Names {
		key := strings.ToLower(n)
		if text, ok := o.text(b, key); ok {
			parts[i] = text
		} else {
			parts[i] = b.texts[key]
		}
	}
	b.mu.RUnlock()
	size := 0
	for i, n := range l.Names {
		if key := strings.ToLower(n); b.isBuiltin[key] {
			parts[i] = ""
			if builtin != nil {
				parts[i] = builtin(key)
			}
		}
		if strings.TrimSpace(parts[i]) == "" {
			parts[i] = ""
			continue
		}
		size += len(parts[i]) + len(separator)
	}
	var out strings.Builder
	out.Grow(size)
	for _, text := range parts {
		if text == "" {
			continue
		}
		if out.Len() > 0 {
			out.WriteString(separator)
		}
		out.WriteString(text)
	}
	return out.String()
}

// ViewRow is one line of the /statusline listing. Builtin rows have no
// Plugin. OnLine reports that the name is in the operator's line (whether or
// not the line is off). Unavailable marks a saved name that no built-in field
// and no loaded plugin has (CC16); such a row has no description or plugin.
type ViewRow struct {
	Name        string
	Description string
	Plugin      string
	OnLine      bool
	Builtin     bool
	Unavailable bool
}

// View returns the /statusline listing: every field in Fields order with its
// description (at most maxDescription runes) and whether it is on l, then each
// saved name of l that no field has, marked Unavailable, in line order. Safe
// for concurrent use.
func (b *Board) View(l Line) []ViewRow {
	onLine := make(map[string]bool, len(l.Names))
	for _, n := range l.Names {
		onLine[strings.ToLower(n)] = true
	}
	fields := b.Fields()
	rows := make([]ViewRow, 0, len(fields)+len(l.Names))
	for _, f := range fields {
		rows = append(rows, ViewRow{Name: f.Name, Description: f.Description, Plugin: f.Plugin,
			OnLine: onLine[f.Name], Builtin: f.Builtin})
		delete(onLine, f.Name)
	}
	for _, n := range l.Names {
		key := strings.ToLower(n)
		if onLine[key] {
			rows = append(rows, ViewRow{Name: key, OnLine: true, Unavailable: true})
			delete(onLine, key)
		}
	}
	return rows
}
