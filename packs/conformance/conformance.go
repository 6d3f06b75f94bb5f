package conformance

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// PackName is the name of the pack.
const PackName = "conformance"

// JSONSchemaToolName is the tool of the suite's json-schema-2020-12 scenario.
const JSONSchemaToolName = "json_schema_2020_12_tool"

//go:embed media/pixel.png
var pixelPNG []byte

//go:embed media/silence.wav
var silenceWAV []byte

// Options configure New. The zero value is what the suite expects: steps of
// the logging and progress tools 50 ms apart.
type Options struct {
	// StepDelay is the pause between the log messages of
	// test_tool_with_logging and the progress reports of
	// test_tool_with_progress; zero means 50 ms, negative means none.
	StepDelay time.Duration
}

func (o Options) delay() time.Duration {
	switch {
	case o.StepDelay == 0:
		return 50 * time.Millisecond
	case o.StepDelay < 0:
		return 0
	}
	return o.StepDelay
}

// None is the arguments of the tools that take none.
type None struct{}

// PromptArgs is the arguments of test_sampling.
type PromptArgs struct {
	Prompt string `json:"prompt" validate:"required,max=10000" description:"The prompt to send to the client's model"`
}

// MessageArgs is the arguments of test_elicitation.
type MessageArgs struct {
	Message string `json:"message" validate:"required,max=10000" description:"The message to show the user"`
}

// Address is part of the arguments of the JSON Schema 2020-12 tool.
type Address struct {
	Street string `json:"street,omitempty" validate:"max=1000"`
	City   string `json:"city,omitempty" validate:"max=1000"`
}

// SchemaArgs is the arguments of the JSON Schema 2020-12 tool.
type SchemaArgs struct {
	Name    string   `json:"name,omitempty" validate:"max=1000"`
	Address *Address `json:"address,omitempty"`
}

// schema2020 is the input schema the suite expects for JSONSchemaToolName:
// the same constraints as SchemaArgs, written with $schema and $defs.
const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"type":"object","properties":{"street":{"type":"string","maxLength":1000},"city":{"type":"string","maxLength":1000}},"additionalProperties":false}},` +
	`"properties":{"name":{"type":"string","maxLength":1000},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`

// The elicitation forms of the SEP-1034 (defaults) and SEP-1330 (enums) tools.
const (
	defaultsForm = `{"type":"object","properties":{` +
		`"name":{"type":"string","default":"John Doe"},` +
		`"age":{"type":"integer","default":30},` +
		`"score":{"type":"number","default":95.5},` +
		`"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},` +
		`"verified":{"type":"boolean","default":true}}}`
	enumsForm = `{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},` +
		`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`
	userForm = `{"type":"object","properties":{` +
		`"username":{"type":"string","description":"User's response"},` +
		`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`
)

// New returns the pack.
func New(o Options) (*registry.Pack, error) {
	t := tools{delay: o.delay()}
	p := &registry.Pack{Name: PackName, Description: "The test tools of the official MCP conformance suite."}
	err := errors.Join(
		registry.AddFunc(p, "test_simple_text", t.simpleText, registry.ToolOptions{Doc: "Returns a simple text."}),
		registry.AddFunc(p, "test_image_content", t.image, registry.ToolOptions{Doc: "Returns a 1x1 red PNG image."}),
		registry.AddFunc(p, "test_audio_content", t.audio, registry.ToolOptions{Doc: "Returns a short silent WAV sound."}),
		registry.AddFunc(p, "test_embedded_resource", t.embedded, registry.ToolOptions{Doc: "Returns an embedded text resource."}),
		registry.AddFunc(p, "test_multiple_content_types", t.mixed, registry.ToolOptions{Doc: "Returns text, an image and an embedded resource."}),
		registry.AddFunc(p, "test_error_handling", t.failure, registry.ToolOptions{Doc: "Always fails, as a domain failure the model can read."}),
		registry.AddFunc(p, "test_tool_with_logging", t.logging, registry.ToolOptions{Doc: "Sends three info log messages to the client while it runs."}),
		registry.AddFunc(p, "test_tool_with_progress", t.progress, registry.ToolOptions{Doc: "Reports progress 0, 50 and 100 of 100 while it runs."}),
		registry.AddFunc(p, "test_sampling", t.sampling, registry.ToolOptions{Doc: "Asks the client's model to answer the prompt and returns the answer."}),
		registry.AddFunc(p, "test_elicitation", t.elicitation, registry.ToolOptions{Doc: "Asks the user for a username and an email address."}),
		registry.AddFunc(p, "test_elicitation_sep1034_defaults", t.elicitDefaults, registry.ToolOptions{Doc: "Asks the user for input with a default for every primitive type (SEP-1034)."}),
		registry.AddFunc(p, "test_elicitation_sep1330_enums", t.elicitEnums, registry.ToolOptions{Doc: "Asks the user to choose from the five kinds of enum (SEP-1330)."}),
	)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	st, err := registry.Func(JSONSchemaToolName, t.schemaTool, registry.ToolOptions{Doc: "Tool with JSON Schema 2020-12 features"})
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	// The arguments are decoded and validated from SchemaArgs' tags; the
	// schema shown to clients says the same in 2020-12 terms.
	st.InputSchema = json.RawMessage(schema2020)
	if err := p.Add(st); err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	return p, nil
}

type tools struct {
	delay time.Duration
}

func (t tools) wait(ctx context.Context) error {
	if t.delay <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(t.delay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

func (tools) simpleText(context.Context, None) (result.Result[string], error) {
	return result.Ok("This is a simple text response for testing."), nil
}

func (tools) image(context.Context, None) (result.Result[result.Contents], error) {
	return result.Rich(result.Image(pixelPNG, "image/png")), nil
}

func (tools) audio(context.Context, None) (result.Result[result.Contents], error) {
	return result.Rich(result.Audio(silenceWAV, "audio/wav")), nil
}

func (tools) embedded(context.Context, None) (result.Result[result.Contents], error) {
	return result.Rich(result.TextResource("test://embedded-resource", "text/plain", "This is an embedded resource content.")), nil
}

func (tools) mixed(context.Context, None) (result.Result[result.Contents], error) {
	return result.Rich(
		result.Text("Multiple content types test:"),
		result.Image(pixelPNG, "image/png"),
		result.TextResource("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
	), nil
}

func (tools) failure(context.Context, None) (result.Result[string], error) {
	return result.Failure[string]("This tool intentionally returns an error for testing", "test_error"), nil
}

// logging sends its messages with registry.ClientLog; a caller without a
// client (REST, in process) gets the same answer without the messages.
func (t tools) logging(ctx context.Context, _ None) (result.Result[string], error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := t.wait(ctx); err != nil {
				return result.Failure[string]("cancelled", result.Cancelled).WithException(err), nil
			}
		}
		if err := registry.ClientLog(ctx, registry.LogInfo, msg); err != nil && !errors.Is(err, registry.ErrUnsupported) {
			return result.Result[string]{}, err
		}
	}
	return result.Ok("Tool with logging executed successfully"), nil
}

func (t tools) progress(ctx context.Context, _ None) (result.Result[string], error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := t.wait(ctx); err != nil {
				return result.Failure[string]("cancelled", result.Cancelled).WithException(err), nil
			}
		}
		if err := registry.ReportProgress(ctx, registry.Progress{Progress: p, Total: 100}); err != nil {
			return result.Result[string]{}, err
		}
	}
	return result.Ok("Tool with progress executed successfully"), nil
}

// unsupported turns a talk-back refusal into a domain failure the model
// can read; any other error stays a protocol failure.
func unsupported[T any](err error) (result.Result[T], error) {
	if errors.Is(err, registry.ErrUnsupported) {
		return result.Failure[T](err.Error(), result.Unavailable), nil
	}
	return result.Result[T]{}, err
}

func (tools) sampling(ctx context.Context, a PromptArgs) (result.Result[string], error) {
	res, err := registry.Sample(ctx, registry.SampleRequest{
		Messages:  []registry.SampleMessage{{Role: "user", Content: result.Text(a.Prompt)}},
		MaxTokens: 100,
	})
	if err != nil {
		return unsupported[string](err)
	}
	if res.Content.Type != result.TextContent {
		return result.Ok(fmt.Sprintf("LLM response: (%s content)", res.Content.Type)), nil
	}
	return result.Ok("LLM response: " + res.Content.Text), nil
}

func elicit(ctx context.Context, message, form, prefix string) (result.Result[string], error) {
	res, err := registry.Elicit(ctx, registry.ElicitRequest{Message: message, Schema: json.RawMessage(form)})
	if err != nil {
		return unsupported[string](err)
	}
	content, err := json.Marshal(res.Content)
	if err != nil {
		return result.Result[string]{}, fmt.Errorf("conformance: elicitation content: %w", err)
	}
	return result.Ok(fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, content)), nil
}

func (tools) elicitation(ctx context.Context, a MessageArgs) (result.Result[string], error) {
	return elicit(ctx, a.Message, userForm, "User response: ")
}

func (tools) elicitDefaults(ctx context.Context, _ None) (result.Result[string], error) {
	return elicit(ctx, "Please review and update the form fields with defaults", defaultsForm, "Elicitation completed: ")
}

func (tools) elicitEnums(ctx context.Context, _ None) (result.Result[string], error) {
	return elicit(ctx, "Please select options from the enum fields", enumsForm, "Elicitation completed: ")
}

func (tools) schemaTool(_ context.Context, a SchemaArgs) (result.Result[string], error) {
	if a.Address == nil {
		return result.Ok(fmt.Sprintf("name=%q", a.Name)), nil
	}
	return result.Ok(fmt.Sprintf("name=%q street=%q city=%q", a.Name, a.Address.Street, a.Address.City)), nil
}
