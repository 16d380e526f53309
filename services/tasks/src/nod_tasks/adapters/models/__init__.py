"""Model providers behind one interface (domain.model.ModelProvider), one
module each."""
