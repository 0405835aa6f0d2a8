package config

// Network names a Stellar network the endpoint can serve.
type Network string

// The public networks. A local build may bring networks of its own (see Load).
const (
	Testnet Network = "testnet"
	Mainnet Network = "mainnet"
)

// Preset holds the downstream addresses and chain ids a network implies.
type Preset struct {
	X402Network      string
	Passphrase       string
	MindVaultURL     string
	HorizonURL       string
	RPCURL           string
	SponsorURL       string
	USDCContractID   string
	USDCIssuer       string
	RegistryContract string
	ExplorerTxURL    string // prefix; the transaction hash is appended
}

// Passphrases of the public networks.
const (
	TestnetPassphrase = "Test SDF Network ; September 2015"
	MainnetPassphrase = "Public Global Stellar Network ; September 2015"
)

// presets are the values of docs/operations.md "Network presets". Mainnet has no public RPC
// and no registry deployment, so those stay empty and must be configured.
var presets = map[Network]Preset{
	Testnet: {
		X402Network:      "stellar:testnet",
		Passphrase:       TestnetPassphrase,
		MindVaultURL:     "https://mindvault-hyr3.onrender.com",
		HorizonURL:       "https://horizon-testnet.stellar.org",
		RPCURL:           "https://soroban-testnet.stellar.org",
		SponsorURL:       "https://stellar-sponsored-agent-account.onrender.com",
		USDCContractID:   "CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA",
		USDCIssuer:       "GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5",
		RegistryContract: "CDQKUIADLO5S5WEHEUTTXX2M45WAHVRU2PBEBD6ZGDKMOP5A72FJ3OD4",
		ExplorerTxURL:    "https://stellar.expert/explorer/testnet/tx/",
	},
	Mainnet: {
		X402Network:    "stellar:pubnet",
		Passphrase:     MainnetPassphrase,
		MindVaultURL:   "https://mindvault-hyr3.onrender.com",
		HorizonURL:     "https://horizon.stellar.org",
		SponsorURL:     "https://stellar-sponsored-agent-account.onrender.com",
		USDCContractID: "CCW67TSZV3SSS2HXMBQ5JFGCKJNXKZM7UQUWUZPUTHXSTZLEO7SJMI75",
		USDCIssuer:     "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN",
		ExplorerTxURL:  "https://stellar.expert/explorer/public/tx/",
	},
}
