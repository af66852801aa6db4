// The core subpaths through require (the CommonJS build).
module.exports = { core: require('dynafold'), feed: require('dynafold/feed'), local: require('dynafold/local') };
