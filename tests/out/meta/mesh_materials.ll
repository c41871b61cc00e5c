; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.StructuredBuffer<Object>" = type opaque

@Objects = external constant %"class.StructuredBuffer<Object>"

declare void @DrawFlat()

declare void @DrawStar()

declare void @DrawStriped()

declare void @ShadeMaterial()

declare void @SortByMaterial()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !17, !20, !23, !25}
!wgc.spirv.entryPoints = !{!33, !34, !35, !36, !37}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, null, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.StructuredBuffer<Object>"* @Objects, !"Objects", i32 0, i32 0, i32 1, i32 12, i32 0, !6}
!6 = !{i32 1, i32 80}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @DrawFlat, !"DrawFlat", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 4, i32 15, !10, i32 16, i32 -1, i32 18, !11, i32 20, !12, i32 4, !15, i32 65536, i32 2, i32 65537, i32 64, i32 65538, i32 62, i32 5, !16}
!10 = !{!"DrawMaterial", i32 0}
!11 = !{i32 1, i32 1, i32 1}
!12 = !{!13}
!13 = !{i32 1, i32 97, i32 2, !14}
!14 = !{i32 0, i32 8, i32 2, i32 4}
!15 = !{i32 64, i32 1, i32 1}
!16 = !{i32 0}
!17 = !{void ()* @DrawStar, !"DrawStar", null, null, !18}
!18 = !{i32 8, i32 15, i32 13, i32 4, i32 15, !19, i32 16, i32 -1, i32 18, !11, i32 20, !12, i32 4, !15, i32 65536, i32 2, i32 65537, i32 64, i32 65538, i32 62, i32 5, !16}
!19 = !{!"DrawMaterial", i32 2}
!20 = !{void ()* @DrawStriped, !"DrawStriped", null, null, !21}
!21 = !{i32 8, i32 15, i32 13, i32 4, i32 15, !22, i32 16, i32 -1, i32 18, !11, i32 20, !12, i32 4, !15, i32 65536, i32 2, i32 65537, i32 64, i32 65538, i32 62, i32 5, !16}
!22 = !{!"DrawMaterial", i32 1}
!23 = !{void ()* @ShadeMaterial, !"ShadeMaterial", null, null, !24}
!24 = !{i32 8, i32 0, i32 5, !16}
!25 = !{void ()* @SortByMaterial, !"SortByMaterial", null, null, !26}
!26 = !{i32 8, i32 15, i32 13, i32 2, i32 14, i1 true, i32 15, !27, i32 16, i32 -1, i32 20, !28, i32 21, !31, i32 4, !15, i32 5, !16}
!27 = !{!"SortByMaterial", i32 0}
!28 = !{!29}
!29 = !{i32 1, i32 65, i32 2, !30, i32 3, i32 64}
!30 = !{i32 0, i32 4, i32 2, i32 4}
!31 = !{!32}
!32 = !{i32 1, i32 22, i32 2, !14, i32 3, i32 64, i32 5, i32 3, i32 0, !10}
!33 = !{void ()* @DrawFlat, !"DrawFlat"}
!34 = !{void ()* @DrawStar, !"DrawStar"}
!35 = !{void ()* @DrawStriped, !"DrawStriped"}
!36 = !{void ()* @ShadeMaterial, !"ShadeMaterial"}
!37 = !{void ()* @SortByMaterial, !"SortByMaterial"}
