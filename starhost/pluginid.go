package starhost

import "github.com/crystal-star/crystal-star/lifecycle"

// CheckPluginID returns nil when id is a valid plugin id (a lowercase
// letter, then lowercase letters, digits, ".", "_" or "-", 1–64
// characters), and otherwise an error saying why.
func CheckPluginID(id string) error { return lifecycle.CheckID(id) }
