"""The compile server: one warm process whose reused workers (or a child forked for the command) run
each compile, and the thin client the `wgc` command becomes when the server is wanted
(`WGC_SERVER=1`, `--server`).

Stage: around the CLI, like the compile cache (`wgc.buildcache`): it changes where `wgc.cli.main`
runs (in a process forked from a warm server instead of a fresh process), never what it does.

- `protocol`: where a server lives (a private folder in the cache folder, files named by the key
  of this wgc), its key, and the framed messages (standard library only: the client imports it).
- `client`: the thin client (`wgc.entry` calls it; standard library only), starting a server when
  none runs, and `wgc server --status/--stop/--daemon`.
- `daemon`: the server (imports the compiler once, warms it, hands each request to a worker or
  forks a child for it).
- `worker`: a reused worker (runs commands one after the other, each as if alone; replaced when a
  command left state behind).
- `command`: one command in a worker or a child (adopt the client's state, consent, run, report).
"""
