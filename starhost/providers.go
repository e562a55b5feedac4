package starhost

import "github.com/crystal-star/crystal-star/starhost/models"

// ProvidersFile is the name of the model providers file in the home
// directory: {home}/providers.json.
const ProvidersFile = models.ProvidersFile

// Providers, Provider, ProviderModel and ProvidersError are providers.json
// as package models reads it (kept here so embedders need one import).
type (
	Providers      = models.Providers
	Provider       = models.Provider
	ProviderModel  = models.ProviderModel
	ProvidersError = models.ProvidersError
)

// ModelAdapter builds clients for one protocol (models.Adapter): register
// one for a new protocol with Options.Adapters.
type ModelAdapter = models.Adapter

// ModelError is a failed model call with a stable code (models.Error).
type ModelError = models.Error

// LoadProviders reads and validates a providers file; see
// models.LoadProviders.
func LoadProviders(path string) (*Providers, error) { return models.LoadProviders(path) }

// ParseProviders decodes providers.json strictly; see
// models.ParseProviders.
func ParseProviders(path string, data []byte) (*Providers, error) {
	return models.ParseProviders(path, data)
}
