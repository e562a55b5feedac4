// Package builtin registers the six built-in model adapters with
// starhost/models: openai, responses, deepseek, anthropic, gemini and
// ollama. A program that wants every protocol of providers.json served,
// as the crystal-star CLI does, imports it once:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/builtin"
//
// A program that needs fewer imports only the adapter packages it uses.
package builtin

import (
	_ "github.com/crystal-star/crystal-star/starhost/models/anthropic"
	_ "github.com/crystal-star/crystal-star/starhost/models/deepseek"
	_ "github.com/crystal-star/crystal-star/starhost/models/gemini"
	_ "github.com/crystal-star/crystal-star/starhost/models/ollama"
	_ "github.com/crystal-star/crystal-star/starhost/models/openai"
	_ "github.com/crystal-star/crystal-star/starhost/models/responses"
)
