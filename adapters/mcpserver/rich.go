package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/internal/mcpmap"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// isRichSchema reports whether s is the output schema of a rich result type.
func isRichSchema(s json.RawMessage) bool { return mcpmap.IsRichSchema(s) }

// sdkContent is the MCP content item of one valid result.Content.
func sdkContent(c result.Content) sdk.Content {
	switch c.Type {
	case result.ImageContent:
		return &sdk.ImageContent{Data: c.Data, MIMEType: c.MIMEType}
	case result.AudioContent:
		return &sdk.AudioContent{Data: c.Data, MIMEType: c.MIMEType}
	case result.ResourceContent:
		rc := &sdk.ResourceContents{URI: c.URI, MIMEType: c.MIMEType}
		if c.Data != nil {
			rc.Blob = c.Data
		} else {
			rc.Text = c.Text
		}
		return &sdk.EmbeddedResource{Resource: rc}
	case result.ResourceLinkContent:
		return &sdk.ResourceLink{URI: c.URI, Name: c.Name, MIMEType: c.MIMEType, Description: c.Description}
	default:
		return &sdk.TextContent{Text: c.Text}
	}
}

// fromSDKContent converts a sampling answer's content back.
func fromSDKContent(c sdk.Content) (result.Content, error) {
	switch c := c.(type) {
	case *sdk.TextContent:
		return result.Text(c.Text), nil
	case *sdk.ImageContent:
		return result.Image(c.Data, c.MIMEType), nil
	case *sdk.AudioContent:
		return result.Audio(c.Data, c.MIMEType), nil
	case nil:
		return result.Content{}, errors.New("mcpserver: sampling answer has no content")
	default:
		return result.Content{}, fmt.Errorf("mcpserver: sampling answer content %T, expected text, image or audio", c)
	}
}

// sessionPeer talks back to the client of one MCP session.
type sessionPeer struct {
	ss *sdk.ServerSession
}

func (p sessionPeer) Log(ctx context.Context, level registry.LogLevel, logger string, data any) error {
	if err := p.ss.Log(ctx, &sdk.LoggingMessageParams{Level: sdk.LoggingLevel(level), Logger: logger, Data: data}); err != nil {
		return fmt.Errorf("mcpserver: log notification: %w", err)
	}
	return nil
}

func (p sessionPeer) caps() *sdk.ClientCapabilities {
	if ip := p.ss.InitializeParams(); ip != nil && ip.Capabilities != nil {
		return ip.Capabilities
	}
	return &sdk.ClientCapabilities{}
}

func (p sessionPeer) Sample(ctx context.Context, req registry.SampleRequest) (registry.SampleResult, error) {
	if p.caps().Sampling == nil {
		return registry.SampleResult{}, fmt.Errorf("mcpserver: sampling: %w (the client did not declare the sampling capability)", registry.ErrUnsupported)
	}
	params := &sdk.CreateMessageParams{SystemPrompt: req.SystemPrompt, MaxTokens: req.MaxTokens}
	for _, m := range req.Messages {
		params.Messages = append(params.Messages, &sdk.SamplingMessage{Role: sdk.Role(m.Role), Content: sdkContent(m.Content)})
	}
	res, err := p.ss.CreateMessage(ctx, params)
	if err != nil {
		return registry.SampleResult{}, fmt.Errorf("mcpserver: sampling: %w", err)
	}
	content, err := fromSDKContent(res.Content)
	if err != nil {
		return registry.SampleResult{}, err
	}
	return registry.SampleResult{Role: string(res.Role), Content: content, Model: res.Model, StopReason: res.StopReason}, nil
}

func (p sessionPeer) Elicit(ctx context.Context, req registry.ElicitRequest) (registry.ElicitResult, error) {
	if p.caps().Elicitation == nil {
		return registry.ElicitResult{}, fmt.Errorf("mcpserver: elicitation: %w (the client did not declare the elicitation capability)", registry.ErrUnsupported)
	}
	var schema any
	if err := json.Unmarshal(req.Schema, &schema); err != nil {
		return registry.ElicitResult{}, fmt.Errorf("mcpserver: elicitation schema: %w", err)
	}
	res, err := p.ss.Elicit(ctx, &sdk.ElicitParams{Message: req.Message, RequestedSchema: schema})
	if err != nil {
		return registry.ElicitResult{}, fmt.Errorf("mcpserver: elicitation: %w", err)
	}
	return registry.ElicitResult{Action: res.Action, Content: res.Content}, nil
}
