package starhost

import "github.com/crystal-star/crystal-star/lifecycle"

// ValidPluginID reports why id is not a valid plugin id (a lowercase letter,
// then lowercase letters, digits, ".", "_" or "-", 1–64 characters), or ""
// when it is valid.
func ValidPluginID(id string) string {
	if err := lifecycle.CheckID(id); err != nil {
		return err.Error()
	}
	return ""
}
