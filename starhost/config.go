package starhost

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"

	"github.com/crystal-star/crystal-star/contrib"
)

// Config is the layered configuration: {home}/config.toml, then
// <workspace>/.crystal/config.toml over it. Unknown keys are a warning note,
// not a failure. Trust is never configured here (DC19).
type Config struct {
	Plugins     bool     `toml:"plugins"`
	Disabled    []string `toml:"disabled"`
	StatusLine  []string `toml:"status_line"`
	Model       string   `toml:"model"`
	ReviewModel string   `toml:"review_model"`
	Thinking    string   `toml:"thinking"`
	Skills      bool     `toml:"skills"`
}

// layer is one config file as read, with the keys it set.
type layer struct {
	path string
	md   toml.MetaData
	cfg  Config
}

// loadConfig reads the two layers. A missing file is empty; an unreadable
// one is a note and is skipped (never rewritten).
func loadConfig(home, workspace string, note func(contrib.Diagnostic)) Config {
	cfg := Config{Plugins: true, Skills: true, Thinking: "default"}
	for _, path := range []string{filepath.Join(home, "config.toml"), filepath.Join(workspace, ".crystal", "config.toml")} {
		l, err := readLayer(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			note(contrib.Diag(contrib.ManifestSyntax, "", contrib.Pos{File: path}, "config %s is unreadable and is ignored: %v", path, err))
			continue
		}
		for _, k := range l.md.Undecoded() {
			note(contrib.Diagnostic{Code: contrib.ManifestUnknownKey, Severity: contrib.SeverityWarning, Pos: contrib.Pos{File: path},
				Message: "unknown config key " + k.String() + " is ignored"})
		}
		merge(&cfg, l)
	}
	return cfg
}

func readLayer(path string) (*layer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := &layer{path: path}
	l.md, err = toml.Decode(string(data), &l.cfg)
	return l, err
}

func merge(dst *Config, l *layer) {
	set := func(key string) bool { return l.md.IsDefined(key) }
	if set("plugins") {
		dst.Plugins = l.cfg.Plugins
	}
	if set("disabled") {
		dst.Disabled = slices.Concat(dst.Disabled, l.cfg.Disabled)
	}
	if set("status_line") {
		dst.StatusLine = l.cfg.StatusLine
	}
	if set("model") {
		dst.Model = l.cfg.Model
	}
	if set("review_model") {
		dst.ReviewModel = l.cfg.ReviewModel
	}
	if set("thinking") {
		dst.Thinking = l.cfg.Thinking
	}
	if set("skills") {
		dst.Skills = l.cfg.Skills
	}
}
