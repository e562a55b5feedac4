package starhost

import (
	"errors"
	"io/fs"
	"os"
)

// Save writes the session's selection to config.toml, so that the
// next start selects the same (the console's /model, /thinking, /tier,
// /speed and /approval model): model, and that model's thinking,
// service_tier and speed, and review_model (removed when review uses the
// session model; service_tier and speed are removed when unset). A key the
// workspace's .crystal/config.toml sets is written there, since that layer
// wins; every other key goes to {home}/config.toml. Each file is changed
// under its lock and written atomically; an unreadable file is never
// overwritten. It fails with ErrNoModel when no model from providers.json
// is selected (an embedder's SetModel has nothing to save).
func (s *Session) Save() error {
	h := s.h
	h.models.mu.Lock()
	sessionKey, reviewKey := s.sessionKey, s.reviewKey
	saved := h.models.saved[sessionKey]
	h.models.mu.Unlock()
	if sessionKey == "" {
		return codeErrorf(ErrNoModel, "no model from %s is selected; nothing to save", ProvidersFile)
	}
	thinking := saved.thinking
	if thinking == "" {
		thinking = ThinkingDefault
	}
	values := map[string]string{"model": sessionKey, "thinking": thinking, "service_tier": saved.tier,
		"speed": saved.speed, "review_model": reviewKey}
	if h.projectConfigExists() {
		if _, err := h.editConfig(true, func(doc map[string]any) bool { return setKeys(doc, values, true) }); err != nil {
			return err
		}
	}
	_, err := h.editConfig(false, func(doc map[string]any) bool { return setKeys(doc, values, false) })
	return err
}

// projectConfigExists reports whether the workspace has a config layer; a
// save never creates one.
func (h *Host) projectConfigExists() bool {
	_, err := os.Stat(h.configPath(true))
	return !errors.Is(err, fs.ErrNotExist)
}

// setKeys writes values into doc: an empty value removes its key (thinking
// is never empty). With onlyPresent it writes only the keys doc already
// has and takes the ones it set out of values, so the home layer gets the
// rest (a removal is made in both layers, or the home one would apply). It
// reports whether doc changed.
func setKeys(doc map[string]any, values map[string]string, onlyPresent bool) bool {
	changed := false
	for k, v := range values {
		old, present := doc[k]
		if onlyPresent {
			if !present {
				continue
			}
			if v != "" {
				delete(values, k)
			}
		}
		switch {
		case v == "" && present:
			delete(doc, k)
			changed = true
		case v != "" && old != v:
			doc[k] = v
			changed = true
		}
	}
	return changed
}
