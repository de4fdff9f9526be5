# efmesh in Kakoune with kakoune-lsp 17 and later: the language server for
# the SQL models of an efmesh project. Source it from kakrc after
# `eval %sh{kak-lsp}` and `lsp-enable`:
#
#   source ~/src/efmesh/editors/kakoune/efmesh.kak
#
# (kak-lsp 16 and earlier read kak-lsp.toml instead.)

hook -group efmesh global BufSetOption filetype=sql %{
    set-option buffer lsp_servers %{
        [efmesh]
        # The workspace root is the folder holding efmesh.yaml.
        root_globs = ["efmesh.yaml"]
        command = "efmesh"
        args = ["lsp"]
        # settings.efmesh is sent as initializationOptions: the environment
        # code lenses and the server's commands compare with.
        settings_section = "efmesh"
        [efmesh.settings.efmesh]
        environment = "dev"
    }
}
