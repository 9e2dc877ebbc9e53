import React from "react";

export function Button(props: { label: string }) {
  return <button className="poly">{props.label}</button>;
}
