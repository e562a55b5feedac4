package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// Conversions between starhost's tool types and the registry's (contrib),
// at the API boundary: the registry, the dispatch pipeline and the plugin
// bindings keep working on contrib's types; what an embedder passes in or
// gets back is converted here, once per call.

// fromResult is r as an embedder sees it.
func fromResult(r contrib.Result) ToolResult {
	out := ToolResult{Text: r.Text, Data: r.Data}
	if r.Err != nil {
		out.Error = &ToolError{Code: Code(r.Err.Code), Message: r.Err.Message, Cause: Cause(r.Err.Cause)}
	}
	out.Parts = sandbox.ConvertAll(r.Parts, partOf)
	return out
}

// toResult is an embedder's result (an Invoker's, an external tool's, a
// normalizer's) as the registry takes it. Parts without Text get the text
// parts as their Text, as the registry's multimodal results have.
func toResult(r ToolResult) contrib.Result {
	out := contrib.Result{Text: r.Text, Data: r.Data}
	if r.Error != nil {
		out.Err = &contrib.ToolError{Code: string(r.Error.Code), Message: r.Error.Message, Cause: string(r.Error.Cause)}
	}
	if r.Parts != nil {
		parts := sandbox.ConvertAll(r.Parts, internalPart)
		if out.Text == "" && out.Err == nil && out.Data == nil {
			return contrib.PartsResult(parts)
		}
		out.Parts = parts
	}
	return out
}

// toolInfos are the registry's projections as ToolInfos; the two structs
// have the same fields, so a field added to one breaks this conversion
// instead of being dropped silently.
func toolInfos(list []contrib.ToolInfo) []ToolInfo {
	out := make([]ToolInfo, len(list))
	for i, t := range list {
		out[i] = ToolInfo(t)
	}
	return out
}

// externalTools are the embedder's external tools as the registry takes
// them; each Run converts its result.
func externalTools(tools []ExternalTool) []contrib.ExternalTool {
	out := make([]contrib.ExternalTool, len(tools))
	for i, x := range tools {
		out[i] = contrib.ExternalTool{Name: x.Name, ToolSet: x.ToolSet, Description: x.Description,
			Catalogs: contrib.Catalog(x.Catalogs), Parameters: x.Parameters, ReadOnly: x.ReadOnly,
			RequiresApproval: x.RequiresApproval, Multimodal: x.Multimodal}
		if run := x.Run; run != nil {
			out[i].Run = func(ctx context.Context, args any) contrib.Result { return toResult(run(ctx, args)) }
		}
	}
	return out
}

// partOf is a registry content part as the embedder sees it.
func partOf(p contrib.Part) ContentPart {
	return ContentPart{Type: PartType(p.Type), Text: p.Text, Data: p.Data, MIME: p.MIME, URI: p.URI, Blob: p.Blob}
}

// internalPart is an embedder's content part as the registry takes it.
func internalPart(p ContentPart) contrib.Part {
	return contrib.Part{Type: contrib.PartType(p.Type), Text: p.Text, Data: p.Data, MIME: p.MIME, URI: p.URI, Blob: p.Blob}
}
