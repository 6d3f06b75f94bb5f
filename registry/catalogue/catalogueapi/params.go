package catalogueapi

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// Limits of query parameters.
const (
	// MaxFilterIDs caps the bundle ids of one listing.
	MaxFilterIDs = 100
	// MaxFilterTags caps the tags of one listing.
	MaxFilterTags = catalogue.MaxTags
	// MaxSearchRunes caps the search text q.
	MaxSearchRunes = 256
)

// listQuery is a parsed listing query. Which fields apply depends on the
// route.
type listQuery struct {
	BundleIDs       []uuid.UUID
	Tags            []string
	IncludeDisabled bool
	Q               string
	PageSize        int
	PageToken       string
}

// queryKind describes one listing's parameters.
type queryKind struct {
	kind      string
	allowed   []string
	sizeParam string // "pageSize" or "recommendedPageSize"
	clamp     bool   // a too large size is lowered to the maximum, not refused
}

var (
	bundlesQuery = queryKind{"bundles", []string{"bundleIDs", "includeDisabled", "pageSize", "pageToken"}, "pageSize", false}
	toolsQuery   = queryKind{"tools", []string{"tags", "bundleIDs", "includeDisabled", "recommendedPageSize", "pageToken"}, "recommendedPageSize", true}
	searchQuery  = queryKind{"search", []string{"q", "includeDisabled", "pageSize", "pageToken"}, "pageSize", false}
)

// parseQuery reads and checks every parameter of a listing, reporting
// every problem. maxPage caps the page size.
func parseQuery(k queryKind, rawQuery string, maxPage int) (listQuery, []FieldError) {
	q := listQuery{PageSize: min(DefaultPageSize, maxPage)}
	var fe []FieldError
	add := func(field, format string, a ...any) {
		fe = append(fe, FieldError{Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	if len(rawQuery) > MaxQueryBytes {
		add("", "expected a query string of at most %d bytes", MaxQueryBytes)
		return q, fe
	}
	vals, err := url.ParseQuery(rawQuery)
	if err != nil {
		add("", "expected a well-formed query string (percent-encoding, '&' separators)")
		return q, fe
	}
	keys := make([]string, 0, len(vals))
	for key := range vals {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	for _, key := range keys {
		if !slices.Contains(k.allowed, key) {
			add(clip(key, 64), "unknown query parameter; expected one of %s", strings.Join(k.allowed, ", "))
		}
	}
	single := func(name string) (string, bool) {
		vs, ok := vals[name]
		if !ok {
			return "", false
		}
		if len(vs) > 1 {
			add(name, "expected once, got %d times", len(vs))
			return "", false
		}
		return vs[0], true
	}
	if slices.Contains(k.allowed, "bundleIDs") {
		seen := map[uuid.UUID]bool{}
		i := 0
		for _, v := range vals["bundleIDs"] {
			for _, s := range strings.Split(v, ",") {
				if i >= MaxFilterIDs {
					add("bundleIDs", "expected at most %d ids", MaxFilterIDs)
					break
				}
				id, err := catalogue.ParseID(strings.TrimSpace(s))
				if err != nil {
					add(fmt.Sprintf("bundleIDs[%d]", i), "%v", err)
				} else if !seen[id] {
					seen[id] = true
					q.BundleIDs = append(q.BundleIDs, id)
				}
				i++
			}
		}
		slices.SortFunc(q.BundleIDs, func(a, b uuid.UUID) int { return strings.Compare(string(a[:]), string(b[:])) })
	}
	if slices.Contains(k.allowed, "tags") {
		tags := vals["tags"]
		if len(tags) > MaxFilterTags {
			add("tags", "expected at most %d tags, got %d", MaxFilterTags, len(tags))
		} else {
			for i, t := range tags {
				switch {
				case !utf8.ValidString(t):
					add(fmt.Sprintf("tags[%d]", i), "expected valid UTF-8")
				case t == "" || utf8.RuneCountInString(t) > catalogue.MaxTagRunes:
					add(fmt.Sprintf("tags[%d]", i), "expected 1 to %d runes", catalogue.MaxTagRunes)
				default:
					if !slices.Contains(q.Tags, t) {
						q.Tags = append(q.Tags, t)
					}
				}
			}
			slices.Sort(q.Tags)
		}
	}
	if v, ok := single("includeDisabled"); ok {
		switch v {
		case "true":
			q.IncludeDisabled = true
		case "false":
		default:
			add("includeDisabled", "expected true or false, got %q", clip(v, 32))
		}
	}
	if v, ok := single(k.sizeParam); ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil && !isDigits(v):
			add(k.sizeParam, "expected a whole number from 1 to %d, got %q", maxPage, clip(v, 32))
		case err == nil && n < 1:
			add(k.sizeParam, "expected a whole number from 1 to %d, got %d", maxPage, n)
		case err != nil || n > maxPage: // digits beyond int range, or above the cap
			if k.clamp {
				q.PageSize = maxPage
			} else {
				add(k.sizeParam, "expected a whole number from 1 to %d, got %s", maxPage, clip(v, 32))
			}
		default:
			q.PageSize = n
		}
	}
	if v, ok := single("pageToken"); ok {
		if v == "" {
			add("pageToken", "expected a token from nextPageToken, got an empty string")
		}
		q.PageToken = v
	}
	if slices.Contains(k.allowed, "q") {
		v, ok := single("q")
		switch {
		case !ok && len(vals["q"]) == 0:
			add("q", "expected the search text, got nothing")
		case !ok:
		case !utf8.ValidString(v):
			add("q", "expected valid UTF-8")
		case strings.TrimSpace(v) == "":
			add("q", "expected the search text, got only white space")
		case utf8.RuneCountInString(v) > MaxSearchRunes:
			add("q", "expected at most %d runes, got %d", MaxSearchRunes, utf8.RuneCountInString(v))
		default:
			q.Q = v
		}
	}
	return q, fe
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// digest is the filter digest of a parsed query for its listing.
func (q listQuery) digest(kind string) string {
	ids := make([]string, len(q.BundleIDs))
	for i, id := range q.BundleIDs {
		ids[i] = id.String()
	}
	tags := make([]string, len(q.Tags))
	for i, t := range q.Tags {
		tags[i] = strconv.Quote(t)
	}
	return filterDigest(kind, strings.Join(ids, ","), strings.Join(tags, ","),
		strconv.FormatBool(q.IncludeDisabled), q.Q)
}
