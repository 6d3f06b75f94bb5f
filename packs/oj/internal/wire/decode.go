// Package wire decodes the OJ backend's JSON answers (problems, similarity
// searches, platform status, resolve answers, RFC 7807 problem details and
// 202 "fetching" bodies) and percent-encodes the values placed in its URLs.
// It is internal to packs/oj.
//
// Decoders return plain errors saying what is wrong (invalid JSON, a field
// missing or null); the caller classifies them.
package wire

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolpack-go/toolpack/packs/oj/internal/format"
)

// The wire forms. Pointers tell a missing (or null) field from a zero one.
type (
	wireProblem struct {
		ID         json.RawMessage `json:"id"`
		Source     *string         `json:"source"`
		Title      *string         `json:"title"`
		Difficulty *string         `json:"difficulty"`
		ACRate     *float64        `json:"ac_rate"`
		Tags       []string        `json:"tags"`
		Link       *string         `json:"link"`
		Content    *string         `json:"content"`
	}
	wireSimilar struct {
		RewrittenQuery *string `json:"rewritten_query"`
		Results        *[]struct {
			Source     *string         `json:"source"`
			ID         json.RawMessage `json:"id"`
			Title      *string         `json:"title"`
			Difficulty *string         `json:"difficulty"`
			Link       *string         `json:"link"`
			Similarity *float64        `json:"similarity"`
		} `json:"results"`
	}
	wireStatus struct {
		Version   *string `json:"version"`
		Platforms *[]struct {
			Source         *string `json:"source"`
			Total          *uint64 `json:"total"`
			MissingContent *uint64 `json:"missing_content"`
			NotEmbedded    *uint64 `json:"not_embedded"`
		} `json:"platforms"`
	}
	wireResolve struct {
		Problem *wireProblem `json:"problem"`
	}
	wireFetching struct {
		RetryAfter *uint64 `json:"retry_after"`
	}
	wireProblemDetails struct {
		Status *uint16 `json:"status"`
		Title  *string `json:"title"`
		Detail *string `json:"detail"`
	}
)

func unmarshal(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}

func missing(field string) error { return fmt.Errorf("field %q is missing or null", field) }

// idString accepts an id sent as a JSON string or a JSON number.
func idString(raw json.RawMessage, field string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", missing(field)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("field %q: %w", field, err)
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("field %q: expected a string or a number", field)
	}
	return n.String(), nil
}

func (w *wireProblem) problem(prefix string) (*format.Problem, error) {
	id, err := idString(w.ID, prefix+"id")
	if err != nil {
		return nil, err
	}
	if w.Title == nil {
		return nil, missing(prefix + "title")
	}
	p := &format.Problem{ID: id, Title: *w.Title, Difficulty: w.Difficulty, ACRate: w.ACRate, Tags: w.Tags, Link: w.Link}
	if w.Source != nil {
		p.Source = *w.Source
	}
	if w.Content != nil {
		p.Content = *w.Content
	}
	return p, nil
}

// Problem parses a problem object (GET /api/v1/problems/…, daily).
// id and title are required; the other fields are optional.
func Problem(body []byte) (*format.Problem, error) {
	var w wireProblem
	if err := unmarshal(body, &w); err != nil {
		return nil, err
	}
	return w.problem("")
}

// Resolve parses a resolve answer and returns its nested problem.
func Resolve(body []byte) (*format.Problem, error) {
	var w wireResolve
	if err := unmarshal(body, &w); err != nil {
		return nil, err
	}
	if w.Problem == nil {
		return nil, missing("problem")
	}
	return w.Problem.problem("problem.")
}

// Similar parses a similarity-search answer.
func Similar(body []byte) (*format.SimilarResponse, error) {
	var w wireSimilar
	if err := unmarshal(body, &w); err != nil {
		return nil, err
	}
	if w.RewrittenQuery == nil {
		return nil, missing("rewritten_query")
	}
	if w.Results == nil {
		return nil, missing("results")
	}
	out := &format.SimilarResponse{RewrittenQuery: *w.RewrittenQuery, Results: make([]format.SimilarResult, 0, len(*w.Results))}
	for i, r := range *w.Results {
		at := fmt.Sprintf("results[%d].", i)
		id, err := idString(r.ID, at+"id")
		if err != nil {
			return nil, err
		}
		switch {
		case r.Source == nil:
			return nil, missing(at + "source")
		case r.Title == nil:
			return nil, missing(at + "title")
		case r.Similarity == nil:
			return nil, missing(at + "similarity")
		}
		out.Results = append(out.Results, format.SimilarResult{
			Source: *r.Source, ID: id, Title: *r.Title, Difficulty: r.Difficulty, Link: r.Link, Similarity: *r.Similarity,
		})
	}
	return out, nil
}

// Status parses a /status answer.
func Status(body []byte) (*format.StatusResponse, error) {
	var w wireStatus
	if err := unmarshal(body, &w); err != nil {
		return nil, err
	}
	if w.Version == nil {
		return nil, missing("version")
	}
	if w.Platforms == nil {
		return nil, missing("platforms")
	}
	out := &format.StatusResponse{Version: *w.Version, Platforms: make([]format.PlatformStatus, 0, len(*w.Platforms))}
	for i, p := range *w.Platforms {
		at := fmt.Sprintf("platforms[%d].", i)
		switch {
		case p.Source == nil:
			return nil, missing(at + "source")
		case p.Total == nil:
			return nil, missing(at + "total")
		case p.MissingContent == nil:
			return nil, missing(at + "missing_content")
		case p.NotEmbedded == nil:
			return nil, missing(at + "not_embedded")
		}
		out.Platforms = append(out.Platforms, format.PlatformStatus{
			Source: *p.Source, Total: *p.Total, MissingContent: *p.MissingContent, NotEmbedded: *p.NotEmbedded,
		})
	}
	return out, nil
}

// ProblemDetails is an RFC 7807 problem document.
type ProblemDetails struct {
	// Status is the status the document states; nil when absent.
	Status *uint16
	// Title is the short summary (required).
	Title string
	// Detail is the explanation; empty when absent.
	Detail string
}

// ParseProblemDetails reads an RFC 7807 problem; ok is false unless the
// body is a JSON object with a string title (status, when present, must be
// an integer from 0 to 65535).
func ParseProblemDetails(body []byte) (p ProblemDetails, ok bool) {
	var w wireProblemDetails
	if json.Unmarshal(body, &w) != nil || w.Title == nil {
		return p, false
	}
	p.Status, p.Title = w.Status, *w.Title
	if w.Detail != nil {
		p.Detail = *w.Detail
	}
	return p, true
}

// RetryAfter reads the retry_after seconds of a 202 "fetching" body
// ({"retry_after": N, "status": "fetching"}); ok is false when body is not
// such an object.
func RetryAfter(body []byte) (seconds uint64, ok bool) {
	var w wireFetching
	if json.Unmarshal(body, &w) != nil || w.RetryAfter == nil {
		return 0, false
	}
	return *w.RetryAfter, true
}
