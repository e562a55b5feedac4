package starhost_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// The host surface speaks starhost's own types: every parameter and result
// of these methods, and every field reachable from them, is a type of
// package starhost or of the standard library, never one of the internal
// packages (contrib, lifecycle, builtins, statusline, trust), even behind
// an alias. A type from there would show no fields in go doc and tie the
// embedder to a package it should not import.
func TestHostSurfaceSpeaksOwnTypes(t *testing.T) {
	own := map[reflect.Type][]string{
		reflect.TypeOf(&starhost.Host{}): {"Start", "Close", "Reload", "Watch", "Rescan", "Subscribe", "Generation",
			"Plugins", "Stats", "Operator", "Resolve", "StatusLine", "StatusFields", "StatusView", "RenderStatusLine",
			"EditStatusLine", "RunHook", "Hooks", "Points", "Bind", "Commands", "ExecuteCommand", "Expand",
			"Skills", "SkillText", "Config", "Subagents", "AssemblePrompt", "ToolSets"},
		reflect.TypeOf(&starhost.Operator{}): {"Grant", "Revoke", "Grants", "Enable", "Disable", "Install", "Remove", "TrustFile"},
	}
	seen := map[reflect.Type]bool{}
	var check func(where string, ty reflect.Type)
	check = func(where string, ty reflect.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if p := ty.PkgPath(); p != "" && strings.Contains(strings.Split(p, "/")[0], ".") && !strings.HasSuffix(p, "/starhost") {
			t.Errorf("%s: %s is from %s", where, ty, p)
			return
		}
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			check(where, ty.Elem())
		case reflect.Map:
			check(where, ty.Key())
			check(where, ty.Elem())
		case reflect.Func:
			for i := range ty.NumIn() {
				check(where, ty.In(i))
			}
			for i := range ty.NumOut() {
				check(where, ty.Out(i))
			}
		case reflect.Struct:
			for i := range ty.NumField() {
				if f := ty.Field(i); f.IsExported() {
					check(where+"."+f.Name, f.Type)
				}
			}
		}
	}
	for recv, names := range own {
		for _, name := range names {
			m, ok := recv.MethodByName(name)
			if !ok {
				t.Errorf("%s has no method %s", recv, name)
				continue
			}
			ft := m.Type
			for i := 1; i < ft.NumIn(); i++ { // past the receiver
				check(name, ft.In(i))
			}
			for i := range ft.NumOut() {
				check(name, ft.Out(i))
			}
		}
	}
	for _, v := range []any{starhost.Note{}, starhost.Event{}, starhost.PluginInfo{}, starhost.Change{}, starhost.CheckReport{}, starhost.CheckChange{}} {
		check("type", reflect.TypeOf(v))
	}
}
