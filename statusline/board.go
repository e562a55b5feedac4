package statusline

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// BuiltinField is a host-owned field: its name can never be declared by a
// plugin, and its text comes from the host when the line is rendered.
type BuiltinField struct {
	Name        string // compared case-insensitively, stored lowercase
	Description string // sanitised to maxDescription runes
}

// FieldDecl is one status_field(name=..., description=...) as a plugin wrote it.
type FieldDecl struct {
	Name        string
	Description string
}

// Field is one accepted plugin field: its lowercase name, its sanitised
// description and the id of the plugin that holds it.
type Field struct {
	Name        string
	Description string
	Plugin      string
}

// Rejection is one declared name the Board left out (CC15). Index is the
// position in the input slice of Declare, so the caller can point at the
// status_field(...) call; Err is an English sentence for the note.
type Rejection struct {
	Index int
	Name  string
	Err   error
}

// FieldInfo describes one field for listings. Plugin is empty for built-in
// fields. Available reports whether the field can show text now: always for a
// built-in field; for a plugin field, while its plugin has a live sink.
type FieldInfo struct {
	Name        string
	Description string
	Plugin      string
	Builtin     bool
	Available   bool
}

// Board is the host's one set of status fields and their current texts. The
// built-in fields are fixed by NewBoard; plugin fields are declared and
// withdrawn per plugin, and their texts arrive through sinks. Board is safe for
// concurrent use; its methods never call caller-supplied functions while
// holding its lock.
type Board struct {
	builtin     []BuiltinField // immutable after NewBoard
	builtinName []string
	isBuiltin   map[string]bool

	mu      sync.RWMutex
	plugins []string           // declaring plugins, in order of first declaration
	decls   map[string][]Field // plugin → accepted fields, in declaration order
	owner   map[string]string  // field name → plugin
	texts   map[string]string  // field name → published text
	written map[string]uint64  // field name → when its host-wide text was last set or cleared (seq)
	seq     atomic.Uint64      // orders every write, host-wide and sessions' (overlay.go)
	live    map[string]*Sink   // plugin → the one sink allowed to publish
	subs    []subscriber       // copy-on-write: readers use the slice after unlocking
	nextSub uint64
}

type subscriber struct {
	id uint64
	fn func()
}

// NewBoard returns an empty board whose host-owned fields are builtin, in the
// order given. Names are lowercased and descriptions sanitised; a repeated
// name keeps its first entry.
func NewBoard(builtin []BuiltinField) *Board {
	b := &Board{
		isBuiltin: make(map[string]bool, len(builtin)),
		decls:     make(map[string][]Field),
		owner:     make(map[string]string),
		texts:     make(map[string]string),
		written:   make(map[string]uint64),
		live:      make(map[string]*Sink),
	}
	for _, f := range builtin {
		name := strings.ToLower(f.Name)
		if b.isBuiltin[name] {
			continue
		}
		b.isBuiltin[name] = true
		b.builtinName = append(b.builtinName, name)
		b.builtin = append(b.builtin, BuiltinField{Name: name, Description: sanitizeDescription(f.Description)})
	}
	return b
}

// Declare admits a plugin's fields in order (CC15) and returns the accepted
// fields and one Rejection per name left out: illegal tokens, reserved words,
// built-in names, names another plugin already holds (the first declared holds
// a name until it is withdrawn) and repeats within fields.
//
// Declare replaces the plugin's earlier declaration, if any, in the same
// critical section: a reloaded plugin keeps its names against other plugins,
// drops those it no longer declares, loses its published texts and has its
// live sink retired (the new generation starts empty). The plugin keeps its
// place in Fields and View. Safe for concurrent use.
func (b *Board) Declare(plugin string, fields []FieldDecl) (accepted []Field, rejected []Rejection) {
	b.mu.Lock()
	old, subs := b.release(plugin)
	for i, d := range fields {
		name, err := admitName(d.Name, b.builtinName)
		if err == nil {
			err = b.taken(name, plugin)
		}
		if err != nil {
			rejected = append(rejected, Rejection{Index: i, Name: d.Name, Err: err})
			continue
		}
		b.owner[name] = plugin
		accepted = append(accepted, Field{Name: name, Description: sanitizeDescription(d.Description), Plugin: plugin})
	}
	if len(accepted) > 0 {
		if !slices.Contains(b.plugins, plugin) {
			b.plugins = append(b.plugins, plugin)
		}
		b.decls[plugin] = accepted
	} else {
		b.plugins = slices.DeleteFunc(b.plugins, func(p string) bool { return p == plugin })
	}
	b.mu.Unlock()
	b.after(old, subs)
	return slices.Clone(accepted), rejected
}

// taken reports a name already held. Called with b.mu held.
func (b *Board) taken(name, plugin string) error {
	holder, ok := b.owner[name]
	switch {
	case !ok:
		return nil
	case holder == plugin:
		return fmt.Errorf("status field %q is declared twice by plugin %s; the first declaration is kept", name, plugin)
	}
	return fmt.Errorf("status field %q is already declared by plugin %s, which loaded first", name, holder)
}

// Withdraw releases every name plugin holds, removes their texts and retires
// the plugin's live sink. A saved name on the operator's line stays there and
// shows as unavailable (CC16). Withdrawing an unknown plugin does nothing.
// Safe for concurrent use.
func (b *Board) Withdraw(plugin string) {
	b.mu.Lock()
	old, subs := b.release(plugin)
	b.plugins = slices.DeleteFunc(b.plugins, func(p string) bool { return p == plugin })
	b.mu.Unlock()
	b.after(old, subs)
}

// release drops the plugin's names, texts and live sink, keeping its place in
// b.plugins. Called with b.mu held; the caller passes the results to after.
func (b *Board) release(plugin string) (old *Sink, subs []subscriber) {
	subs = b.dropTexts(plugin)
	for _, f := range b.decls[plugin] {
		delete(b.owner, f.Name)
	}
	delete(b.decls, plugin)
	old = b.live[plugin]
	delete(b.live, plugin)
	return old, subs
}

// dropTexts removes every text of plugin's fields and returns the
// subscribers to notify, or nil if nothing was published. Called with b.mu held.
func (b *Board) dropTexts(plugin string) []subscriber {
	changed := false
	for _, f := range b.decls[plugin] {
		if _, ok := b.texts[f.Name]; ok {
			delete(b.texts, f.Name)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return b.subs
}

// after finishes a change made under b.mu: it retires a replaced sink and
// notifies subscribers, both outside the lock.
func (b *Board) after(old *Sink, subs []subscriber) {
	if old != nil {
		old.detach()
	}
	notify(subs)
}

func notify(subs []subscriber) {
	for _, s := range subs {
		s.fn()
	}
}

// text returns the published text of a plugin field (name is compared
// case-insensitively) and whether there is one. Built-in fields have no text
// on the board. Safe for concurrent use.
func (b *Board) text(name string) (string, bool) {
	key := strings.ToLower(name)
	b.mu.RLock()
	text, ok := b.texts[key]
	b.mu.RUnlock()
	return text, ok
}

// Known reports whether name (case-insensitive) is a built-in field or a field
// some loaded plugin holds. It fits the known argument of Line.Apply. Safe for
// concurrent use.
func (b *Board) Known(name string) bool {
	key := strings.ToLower(name)
	if b.isBuiltin[key] {
		return true
	}
	b.mu.RLock()
	_, ok := b.owner[key]
	b.mu.RUnlock()
	return ok
}

// Fields lists the built-in fields in NewBoard order, then the plugin fields
// grouped by plugin in order of first declaration, each plugin's fields in
// declaration order. The result is a fresh slice. Safe for concurrent use.
func (b *Board) Fields() []FieldInfo {
	out := make([]FieldInfo, 0, len(b.builtin))
	for _, f := range b.builtin {
		out = append(out, FieldInfo{Name: f.Name, Description: f.Description, Builtin: true, Available: true})
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, p := range b.plugins {
		live := b.live[p] != nil
		for _, f := range b.decls[p] {
			out = append(out, FieldInfo{Name: f.Name, Description: f.Description, Plugin: p, Available: live})
		}
	}
	return out
}

// Subscribe registers fn to be called after every change of a published text:
// a new or different text, a text removed by Clear, by a blank Set, by
// retiring a sink or by withdrawing or redeclaring a plugin. An identical
// re-set is not a change. One operation is one call, even when it removes
// several texts.
//
// fn is called outside any lock of this package, on the goroutine that made
// the change (often one calling Sink.Set), and possibly concurrently with
// itself; it should read the board (for example with Render) rather than
// assume an order of events. The returned cancel stops later calls; a call
// already under way may still finish. cancel is idempotent. A nil fn is never
// called. Safe for concurrent use.
func (b *Board) Subscribe(fn func()) (cancel func()) {
	if fn == nil {
		return func() {}
	}
	b.mu.Lock()
	b.nextSub++
	id := b.nextSub
	b.subs = append(slices.Clip(b.subs), subscriber{id: id, fn: fn})
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.subs = slices.DeleteFunc(slices.Clone(b.subs), func(s subscriber) bool { return s.id == id })
			b.mu.Unlock()
		})
	}
}
