"""The compile server: one warm process that forks a child per compile, and the thin client the `wgc`
command becomes when the server is wanted (`WGC_SERVER=1`, `--server`).

Stage: around the CLI, like the compile cache (`wgc.buildcache`): it changes where `wgc.cli.main`
runs (in a child forked from a warm server instead of a fresh process), never what it does.

- `protocol`: where a server lives (a private folder in the cache folder, files named by the key
  of this wgc), its key, and the framed messages (standard library only: the client imports it).
- `client`: the thin client (`wgc.entry` calls it; standard library only), starting a server when
  none runs, and `wgc server --status/--stop/--daemon`.
- `daemon`: the server (imports the compiler once, warms it, forks one child per request).
"""
