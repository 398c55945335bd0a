package dev.elector.controller;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The key manager of the webhook's listener, whose certificate can be swapped while it serves: each
 * new TLS handshake takes the certificate served at that moment; connections already open keep
 * theirs. The listener's SSLContext is made once over this manager, so a renewal needs no new
 * socket and drops no connection.
 *
 * <p>Each certificate is served under its own alias by the JDK's key manager, and the one before is
 * kept, so a handshake that chose an alias just before a swap still finds that alias's key and
 * chain.
 */
final class ServingKeys extends X509ExtendedKeyManager {
  /** One certificate, under its own alias, with the JDK's key manager over it. */
  private record Entry(X509Certificate certificate, X509ExtendedKeyManager keys) {}

  private record Served(Entry current, Entry previous) {}

  private final AtomicReference<Served> served = new AtomicReference<>();
  private final AtomicLong generation = new AtomicLong();

  /** Serves {@code tls} from the next handshake on. */
  void serve(WebhookTls tls) {
    Entry entry = entry("webhook-" + generation.incrementAndGet(), tls);
    served.updateAndGet(s -> new Served(entry, s == null ? null : s.current()));
  }

  /** The certificate the next handshake presents, or null before the first {@link #serve}. */
  X509Certificate current() {
    Served s = served.get();
    return s == null ? null : s.current().certificate();
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

  private static Entry entry(String alias, WebhookTls tls) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] password = new char[0];
      store.setKeyEntry(alias, tls.privateKey(), password, new Certificate[] {tls.certificate()});
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, password);
      for (KeyManager manager : factory.getKeyManagers()) {
        if (manager instanceof X509ExtendedKeyManager keys) {
          return new Entry(tls.certificate(), keys);
        }
      }
      throw new IllegalStateException("the JDK made no X509ExtendedKeyManager");
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalArgumentException("the webhook certificate cannot be used: " + e, e);
    }
  }

  private X509ExtendedKeyManager currentKeys() {
    Served s = served.get();
    return s == null ? null : s.current().keys();
  }

  // aliases differ between certificates, so a lookup asks the current one, then the one before
  private <T> T lookup(java.util.function.Function<X509ExtendedKeyManager, T> get) {
    Served s = served.get();
    if (s == null) {
      return null;
    }
    T found = get.apply(s.current().keys());
    return found != null || s.previous() == null ? found : get.apply(s.previous().keys());
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    X509ExtendedKeyManager keys = currentKeys();
    return keys == null ? null : keys.chooseEngineServerAlias(keyType, issuers, engine);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    X509ExtendedKeyManager keys = currentKeys();
    return keys == null ? null : keys.chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    X509ExtendedKeyManager keys = currentKeys();
    return keys == null ? null : keys.getServerAliases(keyType, issuers);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return lookup(keys -> keys.getCertificateChain(alias));
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return lookup(keys -> keys.getPrivateKey(alias));
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
