package pgstore

import (
	"bytes"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// A change's notification carries the id of the Store that made it and
// the bundles it touched, separated by spaces: "<instance> <bundle id>
// <bundle id> …". A payload of the instance alone means "bundles not
// known": a change touching more than maxNotifiedBundles bundles (a
// reap), or one sent by an older version of this package, which sent the
// instance alone. A watcher then re-reads the whole catalogue.
const maxNotifiedBundles = 64

// maxGatheredBundles bounds the bundles one call of WatchBundles names;
// a burst touching more is reported as "re-read everything" (nil).
const maxGatheredBundles = 1024

// notifyPayload is the payload of a change made by instance touching
// bundles (see maxNotifiedBundles). Its length stays far under
// PostgreSQL's 8000-byte limit: 65 ids of 36 characters and a space.
func notifyPayload(instance string, bundles []uuid.UUID) string {
	if len(bundles) == 0 || len(bundles) > maxNotifiedBundles {
		return instance
	}
	var b strings.Builder
	b.Grow(len(instance) + len(bundles)*37)
	b.WriteString(instance)
	for _, id := range bundles {
		b.WriteByte(' ')
		b.WriteString(id.String())
	}
	return b.String()
}

// parsePayload reads a notification's payload: the instance that made
// the change and the bundles it touched, known false when the payload
// does not name them all (the instance alone, or anything that is not a
// list of bundle ids: the caller then re-reads everything rather than
// guess).
func parsePayload(p string) (instance string, bundles []uuid.UUID, known bool) {
	instance, rest, found := strings.Cut(p, " ")
	if !found {
		return instance, nil, false
	}
	fields := strings.Split(rest, " ")
	if len(fields) > maxNotifiedBundles {
		return instance, nil, false
	}
	bundles = make([]uuid.UUID, 0, len(fields))
	for _, f := range fields {
		// Only the canonical form notifyPayload writes; uuid.Parse also
		// takes braces, "urn:uuid:" and 32 bare digits.
		if len(f) != 36 {
			return instance, nil, false
		}
		id, err := uuid.Parse(f)
		if err != nil {
			return instance, nil, false
		}
		bundles = append(bundles, id)
	}
	return instance, bundles, true
}

// gathered collects the bundles a burst of other hosts' notifications
// touched.
type gathered struct {
	foreign bool               // a notification of another host was seen
	all     bool               // one of them did not name its bundles
	ids     map[uuid.UUID]bool // the bundles named, while !all
}

// add takes one notification's payload, skipping self's own.
func (g *gathered) add(payload, self string) {
	inst, ids, known := parsePayload(payload)
	if inst == self {
		return
	}
	g.foreign = true
	if g.all {
		return
	}
	if !known {
		g.all, g.ids = true, nil
		return
	}
	if g.ids == nil {
		g.ids = make(map[uuid.UUID]bool, len(ids))
	}
	for _, id := range ids {
		g.ids[id] = true
	}
	if len(g.ids) > maxGatheredBundles {
		g.all, g.ids = true, nil
	}
}

// bundles is what WatchBundles reports for the burst: the ids in order,
// or nil for everything.
func (g *gathered) bundles() []uuid.UUID {
	if g.all || len(g.ids) == 0 {
		return nil
	}
	out := make([]uuid.UUID, 0, len(g.ids))
	for id := range g.ids {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	return out
}
