// java TrustStore.java OUT CERT...: writes the PEM certificates CERT... as the trusted entries of a
// JKS key store OUT (password "changeit", the JRE's default), the images' Java trust store. JKS
// keeps the certificates unencrypted, so a JRE reads them without the password. Each alias is the
// certificate's file name without ".crt", in lower case.
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Locale;

public class TrustStore {
  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: java TrustStore.java OUT CERT...");
    }
    KeyStore store = KeyStore.getInstance("JKS");
    store.load(null, null);
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    String[] certs = Arrays.copyOfRange(args, 1, args.length);
    Arrays.sort(certs);
    for (String cert : certs) {
      Path path = Path.of(cert);
      try (InputStream in = Files.newInputStream(path)) {
        X509Certificate certificate = (X509Certificate) x509.generateCertificate(in);
        String alias =
            path.getFileName().toString().replaceFirst("\\.crt$", "").toLowerCase(Locale.ROOT);
        store.setCertificateEntry(alias, certificate);
      }
    }
    try (OutputStream out = Files.newOutputStream(Path.of(args[0]))) {
      store.store(out, "changeit".toCharArray());
    }
    System.out.println(store.size());
  }
}
