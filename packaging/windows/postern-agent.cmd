@echo off
rem Runs the Postern agent's command line (the compiled CLI in dist\ beside this file) with the system's
rem Node.js 22 or later: the app's own Electron binary cannot run it, its runAsNode fuse is off.
node "%~dp0dist\src\agent\cli.js" %*
