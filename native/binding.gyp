{
  "targets": [
    {
      "target_name": "postern_net",
      "sources": ["postern_net.c"],
      "cflags": ["-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
