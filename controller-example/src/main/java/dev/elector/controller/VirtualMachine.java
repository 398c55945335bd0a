package dev.elector.controller;

import com.google.gson.annotations.SerializedName;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * The part of a KubeVirt {@code kubevirt.io/v1} VirtualMachine the controller reads: its metadata
 * (with the MAC-address annotation), its interfaces' names and MACs, and its networks. The
 * controller never writes VirtualMachines, so the fields it does not model are of no concern.
 */
final class VirtualMachine implements KubernetesObject {
  static final String GROUP = "kubevirt.io";
  static final String VERSION = "v1";
  static final String API_VERSION = GROUP + "/" + VERSION;
  static final String KIND = "VirtualMachine";
  static final String PLURAL = "virtualmachines";

  @SerializedName("apiVersion")
  private String apiVersion = API_VERSION;

  @SerializedName("kind")
  private String kind = KIND;

  @SerializedName("metadata")
  private V1ObjectMeta metadata;

  @SerializedName("spec")
  private Spec spec;

  @Override
  public String getApiVersion() {
    return apiVersion;
  }

  @Override
  public String getKind() {
    return kind;
  }

  @Override
  public V1ObjectMeta getMetadata() {
    return metadata;
  }

  VirtualMachine metadata(V1ObjectMeta metadata) {
    this.metadata = metadata;
    return this;
  }

  /** The interfaces of spec.template.spec.domain.devices, never null. */
  List<Interface> interfaces() {
    if (spec == null
        || spec.template == null
        || spec.template.spec == null
        || spec.template.spec.domain == null
        || spec.template.spec.domain.devices == null
        || spec.template.spec.domain.devices.interfaces == null) {
      return List.of();
    }
    return spec.template.spec.domain.devices.interfaces;
  }

  /** The networks of spec.template.spec, never null. */
  List<Network> networks() {
    if (spec == null
        || spec.template == null
        || spec.template.spec == null
        || spec.template.spec.networks == null) {
      return List.of();
    }
    return spec.template.spec.networks;
  }

  /** Adds an interface and its network ({@code multusNetwork} null: a pod network). */
  VirtualMachine nic(String name, String mac, String multusNetwork) {
    if (spec == null) {
      spec = new Spec();
    }
    if (spec.template == null) {
      spec.template = new Template();
    }
    if (spec.template.spec == null) {
      spec.template.spec = new InstanceSpec();
    }
    InstanceSpec s = spec.template.spec;
    if (s.domain == null) {
      s.domain = new Domain();
    }
    if (s.domain.devices == null) {
      s.domain.devices = new Devices();
    }
    if (s.domain.devices.interfaces == null) {
      s.domain.devices.interfaces = new ArrayList<>();
    }
    if (s.networks == null) {
      s.networks = new ArrayList<>();
    }
    s.domain.devices.interfaces.add(new Interface(name, mac));
    Network network = new Network();
    network.name = name;
    if (multusNetwork != null) {
      network.multus = new Multus();
      network.multus.networkName = multusNetwork;
    } else {
      network.pod = new Object();
    }
    s.networks.add(network);
    return this;
  }

  static final class Spec {
    @SerializedName("template")
    private Template template;
  }

  static final class Template {
    @SerializedName("spec")
    private InstanceSpec spec;
  }

  static final class InstanceSpec {
    @SerializedName("domain")
    private Domain domain;

    @SerializedName("networks")
    private List<Network> networks;
  }

  static final class Domain {
    @SerializedName("devices")
    private Devices devices;
  }

  static final class Devices {
    @SerializedName("interfaces")
    private List<Interface> interfaces;
  }

  /** One interface: its name (matching a network's) and its MAC, which may be absent. */
  static final class Interface {
    @SerializedName("name")
    private String name;

    @SerializedName("macAddress")
    private String macAddress;

    Interface() {}

    Interface(String name, String macAddress) {
      this.name = name;
      this.macAddress = macAddress;
    }

    String name() {
      return name;
    }

    String macAddress() {
      return macAddress;
    }

    void macAddress(String mac) {
      this.macAddress = mac;
    }
  }

  /** One network: a Multus network (multus.networkName), or another kind such as pod. */
  static final class Network {
    @SerializedName("name")
    private String name;

    @SerializedName("multus")
    private Multus multus;

    @SerializedName("pod")
    private Object pod;

    String name() {
      return name;
    }

    /** The Multus network name as written, or null for a network of another kind. */
    String multusNetworkName() {
      return multus == null ? null : multus.networkName;
    }

    void multusNetworkName(String networkName) {
      multus = new Multus();
      multus.networkName = networkName;
      pod = null;
    }
  }

  static final class Multus {
    @SerializedName("networkName")
    private String networkName;
  }
}
