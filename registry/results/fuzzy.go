package results

import (
	"unicode"
	"unicode/utf8"
)

// fuzzy is the built-in fuzzy scorer for one search text (at most 64
// characters). It is case-insensitive and measures how far the
// best-matching part of a line is from the text, in edits (a character
// inserted, removed, replaced, or two neighbours swapped): a line holding
// the text scores 1, one edit away 1 − 1/n for a text of n characters, and
// so on; a line more than n/4 edits away (rounded down) does not match, so
// texts of one to three characters must appear as they are. Among lines
// as many edits away, the one the text covers more of comes first (the
// line "config" before "configuration loaded" for the text config): the
// score loses up to coverageWeight, far less than one edit costs, as the
// line is longer than the text. Ties left keep line order.
//
// The distance is computed with the bit-parallel algorithm of Myers (1999)
// extended to swaps by Hyyrö (2003): one machine word holds a column of
// the edit-distance table, so a line costs a few operations per character
// whatever the text's length.
type fuzzy struct {
	m       int         // characters in the text
	maxDist int         // most edits a match may need
	ascii   [128]uint64 // for each ASCII character (both cases), the text's positions holding it
	other   map[rune]uint64
}

func newFuzzy(search string) *fuzzy {
	f := &fuzzy{other: map[rune]uint64{}}
	for _, r := range search {
		if f.m == 64 {
			break // the caller allows at most MaxFuzzyRunes (64)
		}
		bit := uint64(1) << f.m
		r = unicode.ToLower(r)
		if r < utf8.RuneSelf {
			f.ascii[r] |= bit
			if 'a' <= r && r <= 'z' {
				f.ascii[r-'a'+'A'] |= bit
			}
		} else {
			f.other[r] |= bit
		}
		f.m++
	}
	f.maxDist = f.m / 4
	return f
}

// score scores line: 1 when it holds the text, less the more edits its
// closest part needs; ok is false beyond maxDist edits.
func (f *fuzzy) score(line []byte) (float64, bool) {
	if f.m == 0 {
		return 1, true
	}
	d, runes := f.distance(line)
	if d > f.maxDist {
		return 0, false
	}
	uncovered := 1 - float64(f.m)/float64(max(runes, f.m))
	return 1 - float64(d)/float64(f.m) - coverageWeight*uncovered, true
}

// coverageWeight is the most a line's length takes off its score: under
// one edit's cost for the longest text (1/64), so the edits decide first.
const coverageWeight = 1.0 / 1024

// distance is the fewest edits turning the search text into some part of
// line (optimal string alignment distance, free start and end in the
// line), and the characters of line.
func (f *fuzzy) distance(line []byte) (dist, runes int) {
	m := f.m
	top := uint64(1) << (m - 1)
	mask := ^uint64(0) >> (64 - m)
	vp, vn := mask, uint64(0) // vertical deltas +1 / -1 of the current column
	d0prev, eqprev := uint64(0), uint64(0)
	score, best := m, m
	for i := 0; i < len(line); {
		var eq uint64
		if c := line[i]; c < utf8.RuneSelf {
			eq = f.ascii[c]
			i++
		} else {
			r, size := utf8.DecodeRune(line[i:])
			if r = unicode.ToLower(r); r < utf8.RuneSelf {
				eq = f.ascii[r]
			} else {
				eq = f.other[r]
			}
			i += size
		}
		runes++
		tr := ((^d0prev & eq) << 1) & eqprev // a swap of this character and the previous one
		d0 := (((eq & vp) + vp) ^ vp) | eq | vn | tr
		hp := vn | ^(d0 | vp)
		hn := d0 & vp
		if hp&top != 0 {
			score++
		} else if hn&top != 0 {
			score--
		}
		hp <<= 1 // no carry in: a match may start anywhere in the line
		hn <<= 1
		vp = (hn | ^(d0 | hp)) & mask
		vn = hp & d0
		d0prev, eqprev = d0, eq
		if score < best {
			best = score
		}
	}
	return best, runes
}
