#!/usr/bin/env bash
# Uploads the release set that release/release.sh staged (target/staging-deploy unless --staging DIR), the
# same files and nothing rebuilt:
#   release/upload.sh repository URL   to a team's Maven repository (Nexus, Artifactory, any that
#                                        takes an HTTP PUT per file), URL being the repository's
#                                        base, e.g. https://nexus.example.com/repository/releases;
#                                        credentials in REPOSITORY_USER and REPOSITORY_PASSWORD
#   release/upload.sh bundle           writes the Central Portal's bundle, target/central-bundle.zip
#   release/upload.sh central          writes that bundle and uploads it to the Central Portal's
#                                        publisher API at CENTRAL_PORTAL_URL (the Portal's address),
#                                        with the Portal user token in CENTRAL_TOKEN_USER and
#                                        CENTRAL_TOKEN_PASSWORD; the deployment then waits in the
#                                        Portal for a person to publish it (USER_MANAGED)
# maven-metadata.xml is not uploaded: the staged one lists this version alone, and a repository
# writes its own. The Central Portal takes only signed files: "central" and "bundle" refuse a set
# without an .asc for each file.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
usage() { sed -n '2,17s/^# \{0,1\}//p' "$0"; }
die() { echo "upload.sh: $*" >&2; exit 2; }     # bad input: say the fix
broke() { echo "upload.sh: FAIL $*" >&2; exit 1; } # an upload failed

[[ $# -gt 0 ]] || { usage >&2; exit 2; }
mode="$1"; shift
url=""
if [[ "$mode" == repository ]]; then
  [[ $# -gt 0 && "$1" != --* ]] || die "repository needs the repository's URL, e.g. release/upload.sh repository https://nexus.example.com/repository/releases"
  url="${1%/}"; shift
  [[ "$url" =~ ^(https?|file):// ]] || die "'$url' is not an http(s) or file URL"
fi
staging="$root/target/staging-deploy"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --staging) [[ $# -ge 2 ]] || die "--staging needs a directory"; staging="$2"; shift ;;
    *) die "unknown option '$1'; see release/upload.sh --help" ;;
  esac
  shift
done
case "$mode" in
  repository | bundle | central) ;;
  -h | --help) usage; exit 0 ;;
  *) die "unknown mode '$mode'; name repository, bundle or central" ;;
esac
[[ -d "$staging/dev/elector" ]] || die "$staging holds no release set; build one first with release/release.sh VERSION"

mapfile -t files < <(cd "$staging" && find . -type f ! -name 'maven-metadata.xml*' | sed 's#^\./##' | sort)
[[ ${#files[@]} -gt 0 ]] || die "$staging holds no files"
version="$(printf '%s\n' "${files[@]}" | sed -n 's#^dev/elector/elector-parent/\([^/]*\)/.*#\1#p' | head -n1)"
[[ -n "$version" ]] || die "$staging has no elector-parent pom; build the set again with release/release.sh VERSION"

if [[ "$mode" == repository ]]; then
  [[ "$url" == file://* || -n "${REPOSITORY_USER:-}" ]] \
    || die "set REPOSITORY_USER and REPOSITORY_PASSWORD to an account that may deploy to $url"
  auth=()
  [[ -n "${REPOSITORY_USER:-}" ]] && auth=(--user "$REPOSITORY_USER:${REPOSITORY_PASSWORD:-}")
  for f in "${files[@]}"; do
    # No "Expect: 100-continue": a server that ignores it would hold each file for a second.
    curl --fail --silent --show-error -H 'Expect:' ${auth[@]+"${auth[@]}"} --upload-file "$staging/$f" "$url/$f" >/dev/null \
      || broke "uploading $f to $url/$f failed (above); the files before it are uploaded"
  done
  echo "upload.sh: ${#files[@]} files of dev.elector $version uploaded to $url"
  exit 0
fi

unsigned=()
for f in "${files[@]}"; do
  case "$f" in *.asc | *.md5 | *.sha1) ;; *) [[ -f "$staging/$f.asc" ]] || unsigned+=("$f") ;; esac
done
[[ ${#unsigned[@]} -eq 0 ]] \
  || die "${#unsigned[@]} files have no .asc (${unsigned[0]}, ...); the Central Portal takes signed files only: set MAVEN_GPG_KEY (and MAVEN_GPG_PASSPHRASE) and run release/release.sh again"
bundle="$root/target/central-bundle.zip"
rm -f "$bundle"
(cd "$staging" && printf '%s\n' "${files[@]}" | zip -q -X "$bundle" -@)
echo "upload.sh: $bundle, ${#files[@]} files of dev.elector $version"
[[ "$mode" == central ]] || exit 0

[[ -n "${CENTRAL_PORTAL_URL:-}" ]] || die "set CENTRAL_PORTAL_URL to the Central Portal's address"
[[ -n "${CENTRAL_TOKEN_USER:-}" && -n "${CENTRAL_TOKEN_PASSWORD:-}" ]] \
  || die "set CENTRAL_TOKEN_USER and CENTRAL_TOKEN_PASSWORD to a user token generated in the Central Portal"
token="$(printf '%s:%s' "$CENTRAL_TOKEN_USER" "$CENTRAL_TOKEN_PASSWORD" | base64 | tr -d '\n')"
deployment="$(curl --fail --silent --show-error -H "Authorization: Bearer $token" \
  -F "bundle=@$bundle" "${CENTRAL_PORTAL_URL%/}/api/v1/publisher/upload?name=elector-$version&publishingType=USER_MANAGED")" \
  || broke "the upload to the Central Portal failed (above)"
echo "upload.sh: uploaded to the Central Portal as deployment $deployment; it is validated there, then published from the Portal's Deployments page"
