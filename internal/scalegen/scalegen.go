// Package scalegen generates the one-tool plugins of the scale figures
// (docs/performance.md, "Scale"): n plugin directories, each a plugin.toml
// and a plugin.star contributing one tool with a JSON schema. The plugins
// are generated at run time by the benchmarks and by scale.sh — never
// committed.
package scalegen

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir is the directory name of plugin i (load order is by name).
func Dir(i int) string { return fmt.Sprintf("p%05d", i) }

// Tool is the name of plugin i's one tool.
func Tool(i int) string { return fmt.Sprintf("echo_%d", i) }

// Manifest is plugin i's plugin.toml.
func Manifest(i int) string {
	return fmt.Sprintf("id = \"scale.p%05d\"\nversion = \"1.0.0\"\n", i)
}

// Source is plugin i's plugin.star: one tool that returns its text
// argument.
func Source(i int) string {
	return fmt.Sprintf(`def echo(ctx, args):
    return args["text"]

contribute(tools = [tool(
    name = %q,
    description = "Returns its text.",
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    catalogs = "plan_and_work",
    run = echo,
)])
`, Tool(i))
}

// Write creates plugins 0..n-1 under root.
func Write(root string, n int) error {
	for i := range n {
		dir := filepath.Join(root, Dir(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "plugin.toml"), []byte(Manifest(i)), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "plugin.star"), []byte(Source(i)), 0o644); err != nil {
			return err
		}
	}
	return nil
}
