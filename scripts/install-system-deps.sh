#!/usr/bin/env bash
# Installs the system programs Deskhand's tests drive (X server, window manager, terminal, browser,
# X tools), or says exactly what to run when it cannot. Used by `npm test` and by .ci/run.
set -euo pipefail

declare -A PACKAGE_OF=(
  [Xvfb]=xvfb [openbox]=openbox [xterm]=xterm [chromium]=chromium [xdotool]=xdotool
  [wmctrl]=wmctrl [xdpyinfo]=x11-utils [xprop]=x11-utils [xwininfo]=x11-utils [xmodmap]=x11-xserver-utils
  [mousepad]=mousepad
)
EXTRA_PACKAGES=(xfonts-base fonts-dejavu-core)

missing=()
for program in "${!PACKAGE_OF[@]}"; do
  command -v "$program" >/dev/null 2>&1 || missing+=("${PACKAGE_OF[$program]}")
done
for package in "${EXTRA_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command_line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "Deskhand's tests need these system packages: ${missing[*]}" >&2
echo "Install them with:  sudo sh -c '$command_line'" >&2
exit 1
