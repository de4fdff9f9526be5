module github.com/efmesh/efmesh

go 1.26.0
