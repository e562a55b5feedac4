package starhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// Skill is one skill the skill tool can load: its name and description from
// the SKILL.md front matter (CC19 lists only these, never the body or path).
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	path        string
}

// skillDirs are the skill roots, workspace first.
func (h *Host) skillDirs() []string {
	return h.paths().Skills()
}

// Skills lists the skills the skill tool can load now: one per name, the
// workspace's first; empty when skills are off.
func (h *Host) Skills() []Skill {
	if !h.Config().Skills {
		return nil
	}
	var out []Skill
	for _, root := range h.skillDirs() {
		matches, _ := filepath.Glob(filepath.Join(root, "*", "SKILL.md"))
		slices.Sort(matches)
		for _, m := range matches {
			s, ok := readSkill(m)
			if ok && !slices.ContainsFunc(out, func(o Skill) bool { return o.Name == s.Name }) {
				out = append(out, s)
			}
		}
	}
	return out
}

// readSkill reads name and description from a SKILL.md front matter block.
func readSkill(path string) (Skill, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, false
	}
	s := Skill{Name: filepath.Base(filepath.Dir(path)), path: path}
	fields, _ := frontMatter(data)
	if v := fields["name"]; v != "" {
		s.Name = v
	}
	s.Description = fields["description"]
	return s, true
}

// SkillText returns the whole SKILL.md of the skill named name, as the skill
// tool loads it (the MCP server publishes it as a resource). It fails with
// ErrNoSkill when Skills lists no such name, and with ErrSkillUnreadable,
// wrapping the read error, when the file cannot be read.
func (h *Host) SkillText(name string) (string, error) {
	for _, s := range h.Skills() {
		if s.Name == name {
			body, err := os.ReadFile(s.path)
			if err != nil {
				return "", codeErrorf(ErrSkillUnreadable, "skill %q cannot be read: %w", name, err)
			}
			return string(body), nil
		}
	}
	return "", codeErrorf(ErrNoSkill, "no skill %q", name)
}

// skillChoices says which skills the skill tool can load, for a model
// that asked for another: their names, or that there are none.
func (h *Host) skillChoices() string {
	var names []string
	for _, s := range h.Skills() {
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return "there are no skills"
	}
	return "available: " + strings.Join(names, ", ")
}

// skillTool is the `skill` tool listed last when skills are on (CC6).
func (h *Host) skillTool() *contrib.ExternalTool {
	if !h.Config().Skills {
		return nil
	}
	return &contrib.ExternalTool{
		Name:        "skill",
		Description: "Loads a skill's instructions by name.",
		Catalogs:    contrib.PlanAndWork,
		ReadOnly:    true, // reads a SKILL.md: runs in plan mode without a prompt (MC4)
		Parameters:  []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`),
		Run: func(_ context.Context, args any) contrib.Result {
			name, _ := args.(map[string]any)["name"].(string)
			body, err := h.SkillText(name)
			switch {
			case errors.Is(err, ErrNoSkill):
				return contrib.Failure("unknown_skill", "no skill named "+strconv.Quote(name)+"; "+h.skillChoices())
			case err != nil:
				return contrib.Failure(string(ErrSkillUnreadable), "the skill cannot be read")
			}
			return contrib.Result{Text: body}
		},
	}
}
