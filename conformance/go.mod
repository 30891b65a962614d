module github.com/pond-go/pond/conformance

go 1.26.0

require (
	github.com/pond-go/pond v0.0.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace github.com/pond-go/pond => ../
