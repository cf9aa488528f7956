"""Layer 6: `render`: bundles, chart, params, publishing, all-or-nothing writes."""
