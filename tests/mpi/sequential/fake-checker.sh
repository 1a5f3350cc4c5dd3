#!/usr/bin/env bash
# Stands in for nbcguard-reference-check: exits with the next code of the
# space-separated list in the file $NBCGUARD_FAKE_SEQUENCE, and removes it.
read -r -a codes < "${NBCGUARD_FAKE_SEQUENCE:?}"
[ ${#codes[@]} -gt 0 ] || { echo "fake checker: called more often than the sequence allows"; exit 3; }
echo "${codes[*]:1}" > "$NBCGUARD_FAKE_SEQUENCE"
echo "fake check: exit ${codes[0]}"
exit "${codes[0]}"
