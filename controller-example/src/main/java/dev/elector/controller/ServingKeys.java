package dev.elector.controller;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The key manager of the webhook's listener, whose certificate can be swapped while it serves: each
 * new TLS handshake takes the certificate served at that moment; connections already open keep
 * theirs. The listener's SSLContext is made once over this manager, so a renewal needs no new
 * socket and drops no connection.
 *
 * <p>Each certificate is served under its own alias, and the one before is kept, so a handshake
 * that chose an alias just before a swap still finds that alias's key and chain.
 */
final class ServingKeys extends X509ExtendedKeyManager {
  private record Entry(String alias, PrivateKey key, X509Certificate[] chain) {}

  private record Served(Entry current, Entry previous) {}

  private final AtomicReference<Served> served = new AtomicReference<>();
  private final AtomicLong generation = new AtomicLong();

  /** Serves {@code tls} from the next handshake on. */
  void serve(WebhookTls tls) {
    Entry entry =
        new Entry(
            "webhook-" + generation.incrementAndGet(),
            tls.privateKey(),
            new X509Certificate[] {tls.certificate()});
    served.updateAndGet(s -> new Served(entry, s == null ? null : s.current()));
  }

  /** The certificate the next handshake presents, or null before the first {@link #serve}. */
  X509Certificate current() {
    Served s = served.get();
    return s == null ? null : s.current().chain()[0];
  }

  /** A TLS server context that presents whatever certificate this serves at handshake time. */
  SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(new KeyManager[] {this}, null, new SecureRandom());
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK has no TLS context: " + e, e);
    }
  }

  private String alias(String keyType) {
    Served s = served.get();
    if (s == null || keyType == null) {
      return null;
    }
    // a key only answers for its own algorithm (EC or RSA), so the handshake picks a scheme it can
    // sign with
    return keyType.equals(s.current().key().getAlgorithm()) ? s.current().alias() : null;
  }

  private Entry entry(String alias) {
    Served s = served.get();
    if (s == null || alias == null) {
      return null;
    }
    if (alias.equals(s.current().alias())) {
      return s.current();
    }
    return s.previous() != null && alias.equals(s.previous().alias()) ? s.previous() : null;
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return alias(keyType);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return alias(keyType);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    String alias = alias(keyType);
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Entry entry = entry(alias);
    return entry == null ? null : entry.chain().clone();
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Entry entry = entry(alias);
    return entry == null ? null : entry.key();
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return null;
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return null;
  }
}
