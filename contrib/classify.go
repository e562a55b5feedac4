package contrib

import (
	"context"
	"fmt"
	"slices"
)

// Classification is the risk and permission the host assigns to one tool
// call before approval (CC10).
type Classification struct {
	Risk       string `json:"risk"`       // one of Risks
	Permission string `json:"permission"` // one of Permissions
}

// Risks and Permissions are the tokens a classification may use.
var (
	risks       = []string{"low", "medium", "high"}
	permissions = []string{"allow", "ask", "deny"}
)

// Validate returns why c is not a valid classification, or nil.
func (c Classification) Validate() error {
	switch {
	case !slices.Contains(risks, c.Risk):
		return fmt.Errorf("risk %q is not one of %v", c.Risk, risks)
	case !slices.Contains(permissions, c.Permission):
		return fmt.Errorf("permission %q is not one of %v", c.Permission, permissions)
	}
	return nil
}

// ClassifyFunc classifies one call of a tool the host does not know. ok is
// false when the classifier has no opinion (Starlark None).
type ClassifyFunc func(ctx context.Context, tool string, args any) (c Classification, ok bool, err error)

// Classifier is one classifier(...) contribution (CC10).
type Classifier struct {
	Pos      Pos
	Classify ClassifyFunc
}

// AddClassifier stages a classifier.
func (s *Staging) AddClassifier(c Classifier) {
	s.set.Classifiers = append(s.set.Classifiers, c)
}
