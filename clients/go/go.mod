module github.com/pushmock/pushmock/clients/go

go 1.19
