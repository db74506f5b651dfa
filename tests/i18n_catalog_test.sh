#!/usr/bin/env bash
# The Chinese catalog is complete and current (issue 17): msgfmt accepts it;
# every message the sources mark (tr, trf, tr_noop) has a translation that is
# not fuzzy; no entry is left that the sources no longer mark.
#   i18n_catalog_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2
mkdir -p "$work"
po="$src/lib/po/zh_CN.po"
pot="$work/gpuplan.pot"
cmake -DXGETTEXT="$(command -v xgettext)" -DSRC="$src" -DPOT="$pot" -P "$src/lib/extract_messages.cmake"
msgfmt --check -o /dev/null "$po"
if ! msgcmp "$po" "$pot"; then
  echo "lib/po/zh_CN.po lacks translations (above): cmake --build build/dev --target update-po, then translate" >&2
  exit 1
fi
if ! msgcmp --use-untranslated "$pot" "$po" || grep -q '^#~' "$po"; then
  echo "lib/po/zh_CN.po holds messages the sources no longer mark: cmake --build build/dev --target update-po" >&2
  exit 1
fi
echo "i18n: $(grep -c '^msgid ' "$po") entries (with the header), every marked message translated"
