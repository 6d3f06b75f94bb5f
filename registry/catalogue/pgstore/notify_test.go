package pgstore

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// A notification names the instance and the bundles it touched, and
// reads back as written; past maxNotifiedBundles it names none, and so
// reads as "re-read everything". Every payload fits PostgreSQL's 8000
// bytes.
func TestNotifyPayload_RoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		instance := uuid.New().String()
		n := rapid.IntRange(0, maxNotifiedBundles+3).Draw(t, "n")
		ids := make([]uuid.UUID, n)
		for i := range ids {
			ids[i] = uuid.UUID([]byte(rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "id")))
		}
		p := notifyPayload(instance, ids)
		require.Less(t, len(p), 8000)
		inst, got, known := parsePayload(p)
		assert.Equal(t, instance, inst)
		if n == 0 || n > maxNotifiedBundles {
			assert.False(t, known, "no bundles named: everything is re-read")
			assert.Nil(t, got)
			return
		}
		assert.True(t, known)
		assert.Equal(t, ids, got)
	})
}

// A payload that is not exactly "<instance> <id> …" (an older version's
// instance alone, something else on the channel, an id in another form)
// is read as a change to everything, never as a change to nothing.
func TestParsePayload_AnythingElseMeansEverything(t *testing.T) {
	id := uuid.New().String()
	for _, p := range []string{
		"",
		"inst",
		"inst ",
		"inst  " + id,
		"inst " + id + " ",
		"inst " + strings.ToUpper(id) + "x",
		"inst {" + id + "}",
		"inst urn:uuid:" + id,
		"inst " + strings.ReplaceAll(id, "-", ""),
		"inst " + id[:35] + "g",
		"inst " + strings.Repeat(id+" ", maxNotifiedBundles) + id,
	} {
		_, got, known := parsePayload(p)
		assert.False(t, known, "%q", p)
		assert.Nil(t, got, "%q", p)
	}
}

// A burst reports the union of the bundles other hosts' notifications
// named, in order and once each; this host's own notifications are
// skipped; one that names no bundles, or more than maxGatheredBundles in
// all, makes the burst "everything".
func TestGathered_BurstOfNotifications(t *testing.T) {
	self, other := uuid.New().String(), uuid.New().String()
	a, b, c := uuid.MustParse("00000000-0000-0000-0000-00000000000a"), uuid.MustParse("00000000-0000-0000-0000-00000000000b"), uuid.MustParse("00000000-0000-0000-0000-00000000000c")

	var g gathered
	g.add(notifyPayload(self, []uuid.UUID{c}), self)
	assert.False(t, g.foreign, "own notifications alone are no change")
	g.add(notifyPayload(other, []uuid.UUID{b}), self)
	g.add(notifyPayload(other, []uuid.UUID{a, b}), self)
	assert.True(t, g.foreign)
	assert.Equal(t, []uuid.UUID{a, b}, g.bundles(), "the union, sorted, without this host's own bundle c")

	g.add(other, self)
	assert.Nil(t, g.bundles(), "a notification naming no bundles: everything")
	g.add(notifyPayload(other, []uuid.UUID{c}), self)
	assert.Nil(t, g.bundles(), "stays everything")

	var many gathered
	for range maxGatheredBundles + 1 {
		many.add(notifyPayload(other, []uuid.UUID{uuid.New()}), self)
	}
	assert.Nil(t, many.bundles(), "too many bundles in one burst: everything")
}

// FuzzParsePayload: any payload on the channel (the database delivers
// whatever anyone with access sends) is read without a panic, and a
// payload read as naming bundles is written back to one read the same.
func FuzzParsePayload(f *testing.F) {
	id := "0196f5a8-1c2d-7e3f-8a4b-5c6d7e8f9a0b"
	for _, s := range []string{"", "inst", "inst " + id, "inst " + id + " " + id, "inst {" + id + "}", "a b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		inst, ids, known := parsePayload(p)
		if !known {
			if ids != nil {
				t.Fatalf("%q: ids without known", p)
			}
			return
		}
		again := notifyPayload(inst, ids)
		inst2, ids2, known2 := parsePayload(again)
		if !known2 || inst2 != inst || !slices.Equal(ids2, ids) {
			t.Fatalf("%q written back as %q reads differently", p, again)
		}
	})
}
