/**
 * The Java snippets of README.md, CONTRIBUTING.md and docs/: each snippet in the Markdown is the
 * region between {@code // tag::NAME[]} and {@code // end::NAME[]} of a file here, named by the
 * comment {@code <!-- snippet: FILE#NAME -->} above it, so every snippet a reader copies compiles.
 * {@code DocsTest} fails when a snippet and its region differ.
 */
package dev.elector.docs.snippets;
