#!/usr/bin/python3
"""Writes the cstsim(1) man page from the program's own help texts: `cstsim --help` for the
synopsis and command list, `cstsim <command> --help` for a section per command, so the page can
never say other than the program. (help2man reads one --help; cstsim has a dozen commands.)

    tools/make_manpage.py path/to/cstsim OUT.1
"""
import os
import re
import subprocess
import sys


def help_of(binary, *args):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    p = subprocess.run([binary, *args, "--help"], capture_output=True, text=True, env=env)
    text = p.stdout if p.stdout.strip() else p.stderr
    if not text.strip():
        sys.exit("error: make_manpage: %s %s --help printed nothing" % (binary, " ".join(args)))
    return text


def roff(text):
    """Literal text for a .nf block: backslashes doubled, '-' as a minus, no line read as a request."""
    out = []
    for line in text.rstrip("\n").split("\n"):
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_manpage.py CSTSIM OUT.1")
    binary, out = sys.argv[1], sys.argv[2]
    top = help_of(binary)
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    commands = []
    in_list = False
    for line in top.split("\n"):
        if line.startswith("commands:"):
            in_list = True
            continue
        if in_list:
            m = re.match(r"^  (\S+)\s+(.*)$", line)
            if not m:
                if commands:
                    break
                continue
            commands.append((m.group(1), m.group(2)))
    if not commands:
        sys.exit("error: make_manpage: no command list in `%s --help`" % binary)
    title = top.split("\n")[0]
    summary = title.split("\u2014", 1)[1].strip() if "\u2014" in title else title
    page = [
        '.TH CSTSIM 1 "" "%s" "User Commands"' % version.replace('"', ""),
        ".SH NAME",
        "cstsim \\- %s" % summary.replace("-", "\\-"),
        ".SH SYNOPSIS",
        ".B cstsim",
        ".I command",
        "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        ".nf",
        roff(top),
        ".fi",
        ".SH COMMANDS",
    ]
    for name, what in commands:
        page += [".SS %s" % name.replace("-", "\\-"), what.replace("-", "\\-"), ".PP", ".nf",
                 roff(help_of(binary, name)), ".fi"]
    page += [".SH FILES",
             "Presets (architectures, memories, NoCs, energy tables, workloads) and plot scripts: "
             "\\fIshare/cstsim/configs\\fR and \\fIshare/cstsim/plot\\fR beside the installed binary "
             "(\\fBcstsim \\-\\-version\\fR prints where).",
             ".SH SEE ALSO",
             "docs/guide.md and configs/README.md in the source tree."]
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(page) + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
