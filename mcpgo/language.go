package mcpgo

import (
	"maps"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpform/mcpform/internal/seam"
	"golang.org/x/text/language"
)

// ContentLanguage marks res as written in lang, with the contentLanguage
// _meta of SEP-2792, as [mcpform.ContentLanguage] marks go-sdk's result:
// for a handler that writes its final result in [FlowRound].Language. It
// copies res.Meta rather than edit a map another result may share, and
// leaves res as it is when res is nil, lang is the zero Tag, or lang is
// English, which a client assumes.
func ContentLanguage(res *mcp.CallToolResult, lang language.Tag) {
	if base, _ := lang.Base(); res == nil || lang == (language.Tag{}) || base.String() == "en" {
		return
	}
	meta := &mcp.Meta{AdditionalFields: map[string]any{}}
	if res.Meta != nil {
		meta.ProgressToken = res.Meta.ProgressToken
		maps.Copy(meta.AdditionalFields, res.Meta.AdditionalFields)
	}
	meta.AdditionalFields[seam.MetaContentLanguage] = lang.String()
	res.Meta = meta
}
