package worker

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// fill sets every exported field of the struct v points to to a non-zero
// value, functions and a tool's Run excepted (they stay in the worker: the
// host's stub of a tool takes the Go form). A field of a kind
// it does not know fails the test, so a new kind of field is looked at.
func fill(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		f, sf := v.Field(i), v.Type().Field(i)
		if !sf.IsExported() {
			continue
		}
		switch {
		case f.Kind() == reflect.Func, f.Type() == reflect.TypeFor[contrib.ToolRunner]():
		case f.Type() == reflect.TypeFor[json.RawMessage]():
			f.SetBytes([]byte(`{"field":"` + sf.Name + `"}`))
		case f.Kind() == reflect.String:
			f.SetString("x-" + sf.Name)
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.CanInt():
			f.SetInt(int64(3 + i))
		case f.CanUint():
			f.SetUint(uint64(1 + i%3))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.ValueOf([]string{"a-" + sf.Name, "b"}).Convert(f.Type()))
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Bool:
			b := false // the opposite of a zero-value default
			f.Set(reflect.ValueOf(&b))
		case f.Kind() == reflect.Struct:
			fill(t, f.Addr().Elem())
		default:
			t.Fatalf("%s.%s: a field of kind %s; teach fill to set it", v.Type(), sf.Name, f.Kind())
		}
	}
}

// TestActivatedCarriesEveryField: every field of every contribution a
// worker stages reaches the host (issue 11 point 1: what Starlark declared
// is unchanged across the boundary). A field added to contrib.Tool,
// Command, Placeholder, StatusField, HookEntry or PointEntry is carried
// without a change to the protocol, or this test fails.
func TestActivatedCarriesEveryField(t *testing.T) {
	set := &contrib.Set{Tools: make([]contrib.Tool, 2), Commands: make([]contrib.Command, 2),
		Placeholders: make([]contrib.Placeholder, 2), StatusFields: make([]contrib.StatusField, 2),
		Hooks: make([]contrib.HookEntry, 2), Points: make([]contrib.PointEntry, 2)}
	// The first of each has every field set; the second only a name or
	// none, which must come back as zero (no "null" schema, no empty list).
	fill(t, reflect.ValueOf(&set.Tools[0]).Elem())
	fill(t, reflect.ValueOf(&set.Commands[0]).Elem())
	fill(t, reflect.ValueOf(&set.Placeholders[0]).Elem())
	fill(t, reflect.ValueOf(&set.StatusFields[0]).Elem())
	fill(t, reflect.ValueOf(&set.Hooks[0]).Elem())
	fill(t, reflect.ValueOf(&set.Points[0]).Elem())
	set.Tools[1].Name, set.Commands[1].Name, set.Placeholders[1].Name = "plain", "plain", "plain"
	raw, err := json.Marshal(describe(set))
	if err != nil {
		t.Fatal(err)
	}
	var got wire.Activated
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		want, got any
	}{
		{"tools", set.Tools, got.Tools}, {"commands", set.Commands, got.Commands},
		{"placeholders", set.Placeholders, got.Placeholders}, {"status fields", set.StatusFields, got.StatusFields},
		{"hooks", set.Hooks, got.Hooks}, {"points", set.Points, got.Points},
	} {
		if !reflect.DeepEqual(c.want, c.got) {
			t.Errorf("%s changed across the channel:\nsent %+v\n got %+v", c.name, c.want, c.got)
		}
	}
}
