package dev.elector.dhcp.codec;

/** Option codes (RFC 2132, 3046, 3397) this codec gives a typed view of. */
public final class OptionCode {
  public static final int PAD = 0;
  public static final int SUBNET_MASK = 1;
  public static final int ROUTER = 3;
  public static final int DNS = 6;
  public static final int HOST_NAME = 12;
  public static final int DOMAIN_NAME = 15;
  public static final int NTP = 42;
  public static final int REQUESTED_IP = 50;
  public static final int LEASE_TIME = 51;
  public static final int OVERLOAD = 52;
  public static final int MESSAGE_TYPE = 53;
  public static final int SERVER_ID = 54;
  public static final int PARAMETER_REQUEST_LIST = 55;
  public static final int MESSAGE = 56;
  public static final int MAX_MESSAGE_SIZE = 57;
  public static final int RENEWAL_TIME = 58;
  public static final int REBINDING_TIME = 59;
  public static final int CLIENT_ID = 61;
  public static final int RELAY_AGENT_INFORMATION = 82;
  public static final int DOMAIN_SEARCH = 119;
  public static final int END = 255;

  private OptionCode() {}
}
