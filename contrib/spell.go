package contrib

import "strings"

// Nearest returns the candidate closest to name in edit distance, ignoring
// case, when it is close enough to be a likely misspelling (at most a third
// of name's length in edits, and at least one); "" otherwise. It is the one
// "did you mean" of the project: check, the runtime and the language server
// use it.
func Nearest(name string, candidates []string) string {
	fold := strings.ToLower(name)
	limit := max(1, len(name)/3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		if d := editDistance(fold, strings.ToLower(c), bestDist); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// DidYouMean returns ` (did you mean "x"?)` for the nearest candidate, or "".
func DidYouMean(name string, candidates []string) string {
	if n := Nearest(name, candidates); n != "" {
		return Suggest(n)
	}
	return ""
}

// The words of a "did you mean" around its candidate: Suggest writes them,
// Suggested reads them back.
const suggestOpen, suggestEnd = ` (did you mean "`, `"?)`

// Suggest returns ` (did you mean "x"?)` for the candidate x, for a hint
// found otherwise than by spelling (DidYouMean).
func Suggest(x string) string { return suggestOpen + x + suggestEnd }

// Suggested returns the candidate of the last DidYouMean in msg: what a
// quick fix writes in place of the misspelled name.
func Suggested(msg string) (string, bool) {
	i := strings.LastIndex(msg, suggestOpen)
	if i < 0 {
		return "", false
	}
	rest := msg[i+len(suggestOpen):]
	j := strings.Index(rest, suggestEnd)
	if j <= 0 {
		return "", false
	}
	return rest[:j], true
}

// editDistance is the Damerau-Levenshtein distance of a and b (an adjacent
// transposition counts as one edit), giving up at limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
