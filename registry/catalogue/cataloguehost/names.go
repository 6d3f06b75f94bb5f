package cataloguehost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/registry/catalogue"
)

// hashSuffixLen is the length of the "_" + 16 hex digits that end a name
// too long for its budget.
const hashSuffixLen = 17

// ToolName is the registry name of a catalogue tool version:
// {bundle}.{tool}.{version}, each part written with ASCII letters, digits
// and dashes as they are (dots too in the version) and every other
// character as "_" + its code point in lower-case hex + "_" ("é" →
// "_e9_"). Slugs hold no dot and no part an underscore of its own, so
// different <bundle slug, tool slug, version> triples never give the same
// name. [Catalogue] adds a bundle discriminator and shortens names too
// long for MCP; see the package documentation.
func ToolName(bundleSlug, toolSlug, version string) string {
	var b strings.Builder
	writePart(&b, bundleSlug, false)
	b.WriteByte('.')
	writePart(&b, toolSlug, false)
	b.WriteByte('.')
	writePart(&b, version, true)
	return b.String()
}

func writePart(b *strings.Builder, s string, dots bool) {
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-', dots && r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			b.WriteString(strconv.FormatInt(int64(r), 16))
			b.WriteByte('_')
		}
	}
}

// discriminator is what follows a bundle slug shared with an older
// bundle: "_" and the last 12 hex digits of the bundle id (random bits
// of a UUIDv7).
func discriminator(id uuid.UUID) string {
	return "_" + hex.EncodeToString(id[10:])
}

// fitName shortens name to budget bytes when longer: the first bytes,
// then "_" and 16 hex digits of the SHA-256 of the whole name.
func fitName(name string, budget int) string {
	if len(name) <= budget {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	keep := max(budget-hashSuffixLen, 0)
	return name[:keep] + "_" + hex.EncodeToString(sum[:8])
}

// nameBudget is the length a base name may have so that the final name
// (with the registry's prefix) fits MCP's 128 characters.
func nameBudget(prefix string) int {
	if prefix == "" {
		return registry.MaxNameLen
	}
	if strings.HasSuffix(prefix, "_") || strings.HasSuffix(prefix, ".") || strings.HasSuffix(prefix, "-") {
		return registry.MaxNameLen - len(prefix)
	}
	return registry.MaxNameLen - len(prefix) - 1
}

// bundleParts returns the name part of each bundle: its encoded slug,
// with a discriminator when another bundle has held the same slug longer
// (an earlier SlugSince, which the store sets when a bundle is created,
// imported or given another slug; the smaller id when two are equal). A
// bundle that comes later, whatever id or records a client gives it,
// thus never takes the plain name of another's tools, and every host
// reading the same store names them alike.
func bundleParts(bundles []catalogue.Bundle) map[uuid.UUID]string {
	sorted := slices.Clone(bundles)
	slices.SortFunc(sorted, func(a, b catalogue.Bundle) int {
		if c := slugSince(a).Compare(slugSince(b)); c != 0 {
			return c
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
	seen := map[string]bool{}
	out := make(map[uuid.UUID]string, len(sorted))
	for _, b := range sorted {
		var sb strings.Builder
		writePart(&sb, b.Slug, false)
		part := sb.String()
		if seen[b.Slug] {
			part += discriminator(b.ID)
		}
		seen[b.Slug] = true
		out[b.ID] = part
	}
	return out
}

// slugSince is when b took its slug; a store that does not keep it
// (SlugSince zero) counts from the bundle's creation.
func slugSince(b catalogue.Bundle) time.Time {
	if b.SlugSince.IsZero() {
		return b.CreatedAt
	}
	return b.SlugSince
}

// nameOf is the base registry name of t given its bundle's part.
func nameOf(bundlePart string, t *catalogue.Tool, budget int) string {
	var b strings.Builder
	b.WriteString(bundlePart)
	b.WriteByte('.')
	writePart(&b, t.Slug, false)
	b.WriteByte('.')
	writePart(&b, t.Version, true)
	return fitName(b.String(), budget)
}

// Namespace reports whether name — a tool name as configuration writes
// it, undecorated or under the registry's prefix — is one this catalogue
// gives, or would give, a tool of one of its bundles: {bundle}.{tool}.{version}
// (or such a name shortened to fit MCP) whose bundle part is that of a
// bundle the store holds, enabled, disabled or soft-deleted alike, whether
// a tool has the name now or not; and returns that part (the bundle's
// encoded slug, with its discriminator when it has one). Such names are
// served and withdrawn without a host reloading its configuration (a tool
// switched on or off, a bundle's tools renamed with its slug): a host
// gives Namespace to hostconfig.Options.Dynamic so that an alias to a
// catalogue tool is judged alike whatever is switched on. A bundle purged
// from the store, or given another slug, takes its part with it. It reads
// what the catalogue last synced, never the store.
func (c *Catalogue) Namespace(name string) (bundlePart string, ok bool) {
	prefix := c.reg.Prefix()
	budget := nameBudget(prefix)
	c.mu.RLock()
	defer c.mu.RUnlock()
	if part, ok := c.partOf(name, budget); ok {
		return part, true
	}
	if p := finalName(prefix, ""); prefix != "" && strings.HasPrefix(name, p) {
		return c.partOf(name[len(p):], budget)
	}
	return "", false
}

// partOf returns the bundle part of base when base is a base name a tool
// of a known bundle may have: {part}.{tool}.{version} with neither empty,
// or a name fitName shortened to budget that begins as one would; c.mu
// must be held.
func (c *Catalogue) partOf(base string, budget int) (string, bool) {
	if part, rest, ok := strings.Cut(base, "."); ok && c.spaces[part] {
		if tool, version, ok := strings.Cut(rest, "."); ok && tool != "" && version != "" {
			return part, true
		}
	}
	if !shortened(base, budget) {
		return "", false
	}
	// The kept bytes may end inside the tool slug, or inside the part.
	kept := base[:budget-hashSuffixLen]
	for part := range c.spaces {
		if strings.HasPrefix(kept, part+".") || strings.HasPrefix(part+".", kept) {
			return part, true
		}
	}
	return "", false
}

// shortened reports whether name has the form fitName gives a name too
// long for budget: budget bytes ending in "_" and 16 hex digits.
func shortened(name string, budget int) bool {
	if budget < hashSuffixLen || len(name) != budget || name[budget-hashSuffixLen] != '_' {
		return false
	}
	for _, r := range name[budget-hashSuffixLen+1:] {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}
