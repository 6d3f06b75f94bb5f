package oj_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/oj/internal/wire"
	"github.com/toolpack-go/toolpack/result"
)

// ---- T1 get_daily_challenge ----

func TestDaily_DefaultDateIsUTCNotLocal(t *testing.T) {
	// 23:30 UTC on 9 March is already 10 March in a +14:00 zone.
	zone := time.FixedZone("UTC+14", 14*3600)
	now := time.Date(2024, 3, 9, 23, 30, 0, 0, time.UTC).In(zone)
	require.Equal(t, 10, now.Day(), "the clock's local date must differ from the UTC date")
	e := newEnv(t, nil, oj.Config{Now: func() time.Time { return now }})
	e.ok(t, oj.ToolDailyChallenge, map[string]any{})
	assert.Equal(t, "/api/v1/daily?domain=com&date=2024-03-09", e.lastURI(t))
}

func TestDaily_DomainDefaultsToCom(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.ok(t, oj.ToolDailyChallenge, map[string]any{"date": "2024-01-02"})
	assert.Equal(t, "/api/v1/daily?domain=com&date=2024-01-02", e.lastURI(t))
	e.ok(t, oj.ToolDailyChallenge, map[string]any{"date": "2024-01-02", "domain": "cn"})
	assert.Equal(t, "/api/v1/daily?domain=cn&date=2024-01-02", e.lastURI(t))
}

func TestDaily_BadDomainIsValidationFailureWithoutRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	_, err := e.client.DailyChallenge(t.Context(), oj.DailyArgs{Domain: ptr("COM")})
	var de *oj.DomainError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, result.ValidationError, de.Type)
	assert.Contains(t, de.Message, "domain")
	assert.Empty(t, e.uris())
}

func TestDaily_202IsNotAnError(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolDailyChallenge, map[string]any{"date": "2000-01-01"})
	assert.Equal(t, "The daily challenge is currently being fetched. Please retry after 30 seconds.", md)

	e2 := newEnv(t, jsonHandler(202, "text/plain", "busy"), oj.Config{})
	md = e2.ok(t, oj.ToolDailyChallenge, map[string]any{})
	assert.Equal(t, "The daily challenge is currently being fetched. Please retry later.", md)
}

func TestDaily_200MatchesHeaderTemplate(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolDailyChallenge, map[string]any{"date": "2024-01-02"})
	lines := strings.Split(md, "\n")
	require.Greater(t, len(lines), 9)
	assert.True(t, strings.HasPrefix(lines[0], "# "))
	assert.Contains(t, lines[2], "Source:")
	// The fixture sends no source: the daily tool fills in leetcode.
	assert.Equal(t, "- Source: leetcode | ID: 1 | Difficulty: Easy", lines[2])
	assert.Equal(t, "- Tags: Array, Hash Table", lines[3])
	assert.Equal(t, "- Link: https://leetcode.com/problems/two-sum/", lines[4])
	assert.Equal(t, "- AC Rate: 57.0%", lines[5])
	assert.Equal(t, []string{"", "---", ""}, lines[6:9])
}

func TestDaily_ContentGoesThroughHTMLToMarkdown(t *testing.T) {
	body := `{"id":"1","title":"T","content":"<b>bold</b>"}`
	e := newEnv(t, jsonHandler(200, "application/json", body), oj.Config{})
	md := e.ok(t, oj.ToolDailyChallenge, map[string]any{})
	assert.Contains(t, md, "**bold**")
	assert.NotContains(t, md, "<b>")
}

func TestDaily_BadDateIsValidationFailureWithoutRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	for _, d := range []string{"", "2024-1-5", "2024-02-30", "24-01-01", "2024-01-01&x=1", "2024/01/01", " 2024-01-01", "tomorrow"} {
		res := e.fail(t, oj.ToolDailyChallenge, map[string]any{"date": d})
		assert.Equal(t, "invalid date format, expected YYYY-MM-DD", res.Error, d)
		assert.Equal(t, result.ValidationError, res.ErrorType)
	}
	assert.Empty(t, e.uris(), "a bad date must not reach the backend")
}

func TestDaily_ValidDatesProperty(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	rapid.Check(t, func(t *rapid.T) {
		d := time.Date(rapid.IntRange(1, 9999).Draw(t, "y"), 1, 1, 0, 0, 0, 0, time.UTC).
			AddDate(0, 0, rapid.IntRange(0, 365).Draw(t, "day"))
		if d.Year() > 9999 {
			return
		}
		s := d.Format(time.DateOnly)
		_, err := e.client.DailyChallenge(t.Context(), oj.DailyArgs{Date: &s})
		require.NoError(t, err)
		require.Equal(t, "/api/v1/daily?domain=com&date="+s, e.lastURI(t))
	})
}

// ---- T2 get_problem ----

func TestProblem_PathSegmentsPercentEncoded(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.ok(t, oj.ToolProblem, map[string]any{"source": "a/b", "id": "c d"})
	assert.Equal(t, "/api/v1/problems/a%2Fb/c%20d", e.lastURI(t))
	e.ok(t, oj.ToolProblem, map[string]any{"source": "codeforces", "id": "1920/A"})
	assert.Equal(t, "/api/v1/problems/codeforces/1920%2FA", e.lastURI(t))
	e.ok(t, oj.ToolProblem, map[string]any{"source": "luogu", "id": "P1001 é?#"})
	assert.Equal(t, "/api/v1/problems/luogu/P1001%20%C3%A9%3F%23", e.lastURI(t))
}

func TestProblem_PathEncodingProperty(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	rapid.Check(t, func(t *rapid.T) {
		source := rapid.StringMatching(`[a-z]{1,8}`).Draw(t, "source")
		id := rapid.String().Filter(func(s string) bool {
			return strings.TrimSpace(s) != "" && !wire.IsDotSegment(strings.TrimSpace(s))
		}).Draw(t, "id")
		_, err := e.client.Problem(t.Context(), oj.ProblemArgs{Source: source, ID: id})
		require.NoError(t, err)
		uri := e.lastURI(t)
		require.Equal(t, "/api/v1/problems/"+source+"/"+wire.EncodeComponent(strings.TrimSpace(id)), uri)
		seg := strings.TrimPrefix(uri, "/api/v1/problems/"+source+"/")
		require.NotContains(t, seg, "/")
		back, err := url.PathUnescape(seg)
		require.NoError(t, err)
		require.Equal(t, strings.TrimSpace(id), back)
	})
}

func TestProblem_OutputStartsWithTitle(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "1"})
	assert.True(t, strings.HasPrefix(md, "# Two Sum\n"), md)
}

func TestProblem_EmptyAfterTrimIsErrorWithoutRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	for _, a := range []oj.ProblemArgs{{Source: "", ID: "1"}, {Source: "  ", ID: "1"}, {Source: "leetcode", ID: ""}, {Source: "leetcode", ID: "\t\n "}} {
		_, err := e.client.Problem(t.Context(), a)
		var de *oj.DomainError
		require.ErrorAs(t, err, &de, "%+v", a)
		assert.Equal(t, "source and id must be non-empty", de.Message)
		assert.Equal(t, result.ValidationError, de.Type)
	}
	// Through the registry too (whitespace passes any schema check; the
	// handler rejects it).
	res := e.fail(t, oj.ToolProblem, map[string]any{"source": "  ", "id": "1"})
	assert.Equal(t, result.ValidationError, res.ErrorType)
	res = e.fail(t, oj.ToolProblem, map[string]any{"source": "", "id": "1"})
	assert.Equal(t, result.ValidationError, res.ErrorType)
	assert.Contains(t, res.Error, "source")
	assert.Empty(t, e.uris())
}

// ---- T3 find_similar_problems ----

func TestSimilar_QueryWinsOverSourceAndID(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.ok(t, oj.ToolSimilar, map[string]any{"query": "arrays", "source": "leetcode", "id": "1"})
	assert.Equal(t, "/api/v1/similar?q=arrays&limit=10&threshold=0", e.lastURI(t))
}

func TestSimilar_QueryTooShortFailsWithoutRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	res := e.fail(t, oj.ToolSimilar, map[string]any{"query": "ab"})
	assert.Equal(t, "query must be between 3 and 2000 characters", res.Error)
	assert.Equal(t, result.ValidationError, res.ErrorType)
	res = e.fail(t, oj.ToolSimilar, map[string]any{"query": "  ab  "})
	assert.Equal(t, "query must be between 3 and 2000 characters", res.Error)
	assert.Empty(t, e.uris())
}

func TestSimilar_QueryTooLongFailsWithoutRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.fail(t, oj.ToolSimilar, map[string]any{"query": strings.Repeat("x", 2001)})
	e.fail(t, oj.ToolSimilar, map[string]any{"query": strings.Repeat("é", 2001)})
	assert.Empty(t, e.uris())
}

func TestSimilar_QueryOfExactly3Or2000Proceeds(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.ok(t, oj.ToolSimilar, map[string]any{"query": "abc"})
	e.ok(t, oj.ToolSimilar, map[string]any{"query": strings.Repeat("x", 2000)})
	// Characters, not bytes: 2000 three-byte characters are fine.
	e.ok(t, oj.ToolSimilar, map[string]any{"query": strings.Repeat("問", 2000)})
	assert.Len(t, e.uris(), 3)
}

func TestSimilar_QueryLengthBoundsProperty(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 2100).Draw(t, "n")
		r := rapid.SampledFrom([]rune{'x', 'é', '問', '😀'}).Draw(t, "rune")
		q := strings.Repeat(string(r), n)
		pad := rapid.SampledFrom([]string{"", " ", "\t\n"}).Draw(t, "pad")
		before := len(e.backend.Requests())
		_, err := e.client.SimilarProblems(t.Context(), oj.SimilarArgs{Query: ptr(pad + q + pad), Source: ptr("leetcode"), ID: ptr("1")})
		after := len(e.backend.Requests())
		switch {
		case n == 0: // empty query: mode A with the given source and id
			require.NoError(t, err)
			require.Equal(t, "/api/v1/similar/leetcode/1?limit=10&threshold=0", e.lastURI(t))
		case n >= 3 && n <= 2000:
			require.NoError(t, err)
			require.Equal(t, before+1, after)
			require.True(t, strings.HasPrefix(e.lastURI(t), "/api/v1/similar?q="))
		default:
			var de *oj.DomainError
			require.ErrorAs(t, err, &de)
			require.Equal(t, before, after, "no request for an invalid query")
		}
	})
}

func TestSimilar_ModeARequiresSourceAndID(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	for _, a := range []map[string]any{
		{"source": "leetcode", "id": ""},
		{"source": "", "id": "1"},
		{},
		{"query": "   ", "source": "leetcode"},
		{"id": "1"},
	} {
		res := e.fail(t, oj.ToolSimilar, a)
		assert.Equal(t, "either 'query' or both 'source' and 'id' must be provided", res.Error, "%v", a)
	}
	assert.Empty(t, e.uris())
}

func TestSimilar_InvalidQueryNeverFallsBackToModeA(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	res := e.fail(t, oj.ToolSimilar, map[string]any{"query": "ab", "source": "leetcode", "id": "1"})
	assert.Equal(t, "query must be between 3 and 2000 characters", res.Error)
	assert.Empty(t, e.uris())
}

func TestSimilar_ModeSelectionProperty(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	opt := func(t *rapid.T, name string, gen *rapid.Generator[string]) *string {
		if rapid.Bool().Draw(t, name+"?") {
			return ptr(gen.Draw(t, name))
		}
		return nil
	}
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.OneOf(rapid.StringMatching(`\s{0,2}`), rapid.StringMatching(`[ a-z.]{0,6}`), rapid.String())
		a := oj.SimilarArgs{Query: opt(t, "query", text), Source: opt(t, "source", text), ID: opt(t, "id", text)}
		before := len(e.backend.Requests())
		_, err := e.client.SimilarProblems(t.Context(), a)
		made := len(e.backend.Requests()) - before
		q := ""
		if a.Query != nil {
			q = strings.TrimSpace(*a.Query)
		}
		switch n := len([]rune(q)); {
		case q != "" && n >= 3 && n <= 2000:
			require.NoError(t, err)
			require.Equal(t, "/api/v1/similar?q="+wire.EncodeComponent(q)+"&limit=10&threshold=0", e.lastURI(t))
		case q != "":
			require.Error(t, err)
			require.Zero(t, made)
		case a.Source != nil && a.ID != nil && strings.TrimSpace(*a.Source) != "" && strings.TrimSpace(*a.ID) != "" &&
			!wire.IsDotSegment(strings.TrimSpace(*a.Source)) && !wire.IsDotSegment(strings.TrimSpace(*a.ID)):
			require.NoError(t, err)
			require.Equal(t, "/api/v1/similar/"+wire.EncodeComponent(strings.TrimSpace(*a.Source))+"/"+
				wire.EncodeComponent(strings.TrimSpace(*a.ID))+"?limit=10&threshold=0", e.lastURI(t))
		default:
			require.Error(t, err)
			require.Zero(t, made)
		}
	})
}

func TestSimilar_ValidationOrderLimitThresholdThenMode(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	res := e.fail(t, oj.ToolSimilar, map[string]any{"limit": 0, "threshold": 2, "query": "ab"})
	assert.Equal(t, "limit must be between 1 and 50", res.Error)
	res = e.fail(t, oj.ToolSimilar, map[string]any{"limit": 51, "query": "abc"})
	assert.Equal(t, "limit must be between 1 and 50", res.Error)
	res = e.fail(t, oj.ToolSimilar, map[string]any{"threshold": 1.5, "query": "ab"})
	assert.Equal(t, "threshold must be between 0.0 and 1.0", res.Error)
	res = e.fail(t, oj.ToolSimilar, map[string]any{"threshold": -0.1, "source": "leetcode", "id": "1"})
	assert.Equal(t, "threshold must be between 0.0 and 1.0", res.Error)
	assert.Empty(t, e.uris())
	e.ok(t, oj.ToolSimilar, map[string]any{"limit": 50, "threshold": 1, "query": "abc"})
	e.ok(t, oj.ToolSimilar, map[string]any{"limit": 1, "threshold": 0.25, "source": "leetcode", "id": "1"})
	assert.Equal(t, []string{
		"/api/v1/similar?q=abc&limit=50&threshold=1",
		"/api/v1/similar/leetcode/1?limit=1&threshold=0.25",
	}, e.uris())
}

func TestSimilar_SimilarityFormattedAsPercentWithOneDecimal(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolSimilar, map[string]any{"query": "two sum"})
	assert.Contains(t, md, "| 1 | leetcode | 167 | Two Sum II | Medium | 79.1% | https://leetcode.com/problems/two-sum-ii/ |\n")
	assert.Contains(t, md, "| 2 | codeforces | 1A | Theatre Square | N/A | 100.0% | N/A |\n")
	assert.Contains(t, md, "| 3 | atcoder | abc001_1 | 積雪深差 | N/A | 50.0% | N/A |\n")
	assert.True(t, strings.HasPrefix(md, "# Similar Problems\n\nQuery: two sum\n\n| # | Source | ID | Title | Difficulty | Similarity | Link |\n|---|--------|----|-------|------------|------------|------|\n"), md)
}

func TestSimilar_ModeAPathSegmentsEncoded(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.ok(t, oj.ToolSimilar, map[string]any{"source": "a b", "id": "c/d"})
	assert.Equal(t, "/api/v1/similar/a%20b/c%2Fd?limit=10&threshold=0", e.lastURI(t))
}

func TestSimilar_SourceFilterEncoded(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.ok(t, oj.ToolSimilar, map[string]any{"query": "graphs", "source_filter": "leetcode,codeforces&x=1"})
	assert.Equal(t, "/api/v1/similar?q=graphs&limit=10&threshold=0&source=leetcode%2Ccodeforces%26x%3D1", e.lastURI(t))
}

// ---- T4 resolve_problem ----

func TestResolve_QueryPathEncoded(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	e.ok(t, oj.ToolResolve, map[string]any{"query": "https://leetcode.com/problems/two-sum/"})
	assert.Equal(t, "/api/v1/resolve/https%3A%2F%2Fleetcode.com%2Fproblems%2Ftwo-sum%2F", e.lastURI(t))
	rapid.Check(t, func(t *rapid.T) {
		q := rapid.String().Filter(func(s string) bool { return strings.TrimSpace(s) != "" && !wire.IsDotSegment(s) }).Draw(t, "q")
		_, err := e.client.ResolveProblem(t.Context(), oj.ResolveArgs{Query: q})
		require.NoError(t, err)
		seg := strings.TrimPrefix(e.lastURI(t), "/api/v1/resolve/")
		require.Equal(t, wire.EncodeComponent(q), seg)
		require.NotContainsf(t, seg, "/", "segment %q", seg)
	})
}

func TestResolve_UsesNestedProblem(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolResolve, map[string]any{"query": "two-sum"})
	assert.Contains(t, md, "- Source: leetcode | ID: 1 |")
	assert.NotContains(t, md, "WRONG")
}

func TestResolve_OutputMatchesHeaderTemplate(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolResolve, map[string]any{"query": "cf1A"})
	assert.True(t, strings.HasPrefix(md, "# Two Sum\n\n- Source: leetcode | ID: 1 | Difficulty: Easy\n- Tags: Array, Hash Table\n- Link: https://leetcode.com/problems/two-sum/\n- AC Rate: 57.0%\n\n---\n\n"), md)
}

func TestResolve_EmptyQueryFailsWithoutRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	_, err := e.client.ResolveProblem(t.Context(), oj.ResolveArgs{Query: " \t"})
	var de *oj.DomainError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "query must be non-empty", de.Message)
	e.fail(t, oj.ToolResolve, map[string]any{"query": "  "})
	assert.Empty(t, e.uris())
}

// ---- T5 get_platform_status ----

func TestStatus_NoTokenFailsWithoutRequest(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	res := e.fail(t, oj.ToolStatus, map[string]any{})
	assert.Contains(t, res.Error, "authentication required")
	assert.Equal(t, result.PermissionDenied, res.ErrorType)
	assert.Empty(t, e.uris())
}

func TestStatus_HeaderShowsVersion(t *testing.T) {
	e := newEnv(t, nil, oj.Config{Token: "s3cret"})
	md := e.ok(t, oj.ToolStatus, map[string]any{})
	assert.True(t, strings.HasPrefix(md, "# OJ Platform Status (v1.2.3)\n\n"), md)
	assert.Equal(t, "# OJ Platform Status (v1.2.3)\n\n"+
		"| Platform | Problems | Missing Content | Not Embedded |\n"+
		"|----------|----------|-----------------|--------------|\n"+
		"| atcoder | 8,356 | 320 | 339 |\n"+
		"| codeforces | 12,984 | 0 | 1,000 |\n"+
		"| luogu | 100 | 999 | 1,234,567 |\n", md)
}

func TestStatus_CountsUseCommaGrouping(t *testing.T) {
	e := newEnv(t, nil, oj.Config{Token: "s3cret"})
	md := e.ok(t, oj.ToolStatus, map[string]any{})
	_, _, cells := gfmTable(t, md)
	assert.Equal(t, "12,984", cells[1][1])
	assert.Equal(t, "100", cells[2][1])
	assert.Equal(t, "1,000", cells[1][3])
}

func TestStatus_SendsBearerToken(t *testing.T) {
	e := newEnv(t, nil, oj.Config{Token: "s3cret"})
	e.ok(t, oj.ToolStatus, map[string]any{})
	rs := e.backend.Requests()
	require.Len(t, rs, 1)
	assert.Equal(t, "/status", rs[0].URI)
	assert.Equal(t, "Bearer s3cret", rs[0].Authorization)
	_ = http.MethodGet
}

// ---- Display rules through the tools ----

func TestFormat_MissingValuesShowNA(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "nulls"})
	assert.Equal(t, "# Bare\n\n- Source: leetcode | ID: nulls | Difficulty: N/A\n- Tags: N/A\n- Link: N/A\n- AC Rate: N/A\n\n---\n\nplain text, no markup", md)
}

func TestTruncate_ToolOutputCappedOnUTF8Boundary(t *testing.T) {
	e := newEnv(t, nil, oj.Config{})
	md := e.ok(t, oj.ToolProblem, map[string]any{"source": "leetcode", "id": "big"})
	assert.True(t, strings.HasSuffix(md, oj.TruncatedSuffix))
	assert.LessOrEqual(t, len(md), oj.MaxOutputBytes)
	assert.Greater(t, len(md), oj.MaxOutputBytes-utf8.UTFMax)
	assert.True(t, utf8.ValidString(md))
}
