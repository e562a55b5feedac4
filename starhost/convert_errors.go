package starhost

import (
	"errors"

	"github.com/crystal-star/crystal-star/contrib"
)

// pointError turns the registry's failure of an authoritative entry into
// an error of this package: the same text, wrapping the entry's Code (nil
// stays nil, other errors are returned as they are).
func pointError(err error) error {
	var pe *contrib.PointError
	if !errors.As(err, &pe) {
		return err
	}
	return codeErrorf(Code(pe.Code), "%s: %s: %s", pe.Point, pe.Plugin, pe.Message)
}
