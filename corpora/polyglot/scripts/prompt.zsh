# zsh: read with the Bash grammar where it parses whole
set_prompt() {
  PROMPT="%n> "
}
